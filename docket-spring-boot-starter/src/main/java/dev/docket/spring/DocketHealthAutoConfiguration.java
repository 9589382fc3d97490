package dev.docket.spring;

import dev.docket.Docket;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code docket} health indicator, when the application has Spring Boot's health support
 * (Actuator) and does not switch it off with {@code management.health.docket.enabled=false}.
 */
@AutoConfiguration(after = DocketAutoConfiguration.class)
@ConditionalOnClass({Docket.class, HealthIndicator.class})
@ConditionalOnBean({Docket.class, DocketWorkers.class})
@ConditionalOnEnabledHealthIndicator("docket")
public class DocketHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "docketHealthIndicator")
    public DocketHealthIndicator docketHealthIndicator(Docket docket, DocketWorkers workers,
                                                       DocketProperties properties) {
        return new DocketHealthIndicator(docket, workers, properties.worker().listen());
    }
}
