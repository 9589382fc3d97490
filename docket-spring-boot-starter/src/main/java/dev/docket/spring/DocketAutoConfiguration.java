package dev.docket.spring;

import dev.docket.Docket;
import dev.docket.JobKind;
import dev.docket.PeriodicJob;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures Docket on the application's {@link DataSource}: a {@link Docket} bean (migrated at
 * startup unless {@code docket.migrate=false}) whose enqueues without a {@code Connection} join the
 * Spring-managed transaction of the caller, the {@link JobKind} and {@link PeriodicJob} beans declared
 * on it, and {@link DocketWorkers}, which runs the {@link DocketHandler} beans in the application's
 * lifecycle. An application's own {@code Docket} bean replaces the starter's (give it
 * {@code externalTransactions(new SpringTransactions(dataSource))} to keep enqueues in its transactions);
 * {@link DocketCustomizer} beans adjust the starter's instead.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(Docket.class)
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(DocketProperties.class)
public class DocketAutoConfiguration {

    /** The Docket; closed (its workers stopped) with the context, before the data source. */
    @Bean
    @ConditionalOnMissingBean
    public Docket docket(DataSource dataSource, DocketProperties properties, ObjectProvider<JobKind<?>> kinds,
                         ObjectProvider<PeriodicJob> periodicJobs, ObjectProvider<DocketCustomizer> customizers) {
        Docket.Builder builder = Docket.builder(dataSource).externalTransactions(new SpringTransactions(dataSource));
        new DocketSettings(properties).applyTo(builder);
        kinds.orderedStream().forEach(builder::kind);
        periodicJobs.orderedStream().forEach(builder::periodic);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        Docket docket = builder.build();
        if (properties.migrate()) {
            docket.migrate();
        }
        return docket;
    }

    /** The worker that runs the handler beans, and the builder tests run jobs with. */
    @Bean
    public DocketWorkers docketWorkers(Docket docket, DocketProperties properties, ConfigurableListableBeanFactory beans,
                                       ObjectProvider<JobKind<?>> kinds,
                                       ObjectProvider<DocketWorkerCustomizer> customizers) {
        Map<String, JobKind<?>> byName = new LinkedHashMap<>();
        kinds.orderedStream().forEach(k -> byName.put(k.name(), k));
        return new DocketWorkers(docket, new DocketSettings(properties), new HandlerBeans(beans, byName),
                customizers.orderedStream().toList(), properties.worker().enabled());
    }
}
