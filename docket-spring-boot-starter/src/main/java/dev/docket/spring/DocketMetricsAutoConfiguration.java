package dev.docket.spring;

import dev.docket.Docket;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Docket's meters in the application's {@link MeterRegistry}, when Micrometer is on the class path
 * (Actuator brings it): the registry is given to {@link Docket.Builder#meterRegistry} before the
 * starter builds the {@code Docket}. Without a registry bean, nothing is measured.
 */
@AutoConfiguration(before = DocketAutoConfiguration.class)
@ConditionalOnClass({Docket.class, MeterRegistry.class})
public class DocketMetricsAutoConfiguration {

    @Bean
    public DocketCustomizer docketMeterRegistry(ObjectProvider<MeterRegistry> registry) {
        return builder -> registry.ifAvailable(builder::meterRegistry);
    }
}
