package dev.docket.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.JobHandler;
import dev.docket.JobRun;
import dev.docket.RateLimit;
import dev.docket.RateLimitSettings;
import dev.docket.test.TestPostgres;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** Properties, handler beans and optional parts of the auto-configuration, in light contexts without a web server. */
class StarterConfigurationTest {

    static final String SCHEMA = SchemaPerClass.newName();

    record Note(String text) {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DocketAutoConfiguration.class, DocketHealthAutoConfiguration.class))
            .withBean(DataSource.class, () -> new DelegatingDataSource(TestPostgres.get().dataSource()))
            .withPropertyValues("docket.schema=" + SCHEMA, "docket.migrate=false", "docket.worker.enabled=false");

    @AfterAll
    static void dropSchema() {
        TestPostgres.get().execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
    }

    @Test
    void aValueTheBuilderRefusesFailsStartupNamingThePropertyAndTheRule() {
        assertRefused("docket.worker.lease=500ms", "docket.worker.lease", "lease must be at least");
        assertRefused("docket.worker.queues.mail=0", "docket.worker.queues.mail", "must be between 1 and 10000, was 0");
        assertRefused("docket.worker.queues[no spaces!]=2", "docket.worker.queues.no spaces!", "queue");
        assertRefused("docket.schema=x\"; DROP TABLE jobs; --", "docket.schema", "schema");
        assertRefused("docket.max-payload-size=1GB", "docket.max-payload-size", "maxPayloadBytes must be between");
        assertRefused("docket.retry.jitter=2", "docket.retry", "jitter");
        assertRefused("docket.kinds.mail.priority=70000", "docket.kinds.mail", "priority");
        assertRefused("docket.worker.heartbeat-interval=-1s", "docket.worker.heartbeat-interval", "positive");
        assertRefused("docket.kinds.mail.rate-limit.permits=5", "docket.kinds.mail.rate-limit", "needs permits and period");
        assertRefused("docket.queue-rate-limits.partner.period=0s", "docket.queue-rate-limits.partner", "needs permits");
    }

    @Test
    void rateLimitPropertiesAreDeclaredWhenTheWorkerStarts() {
        runner.withPropertyValues("docket.migrate=true", "docket.worker.enabled=true",
                "docket.kinds.mail.rate-limit.permits=5", "docket.kinds.mail.rate-limit.period=1s",
                "docket.kinds.mail.rate-limit.per-tenant=true",
                "docket.queue-rate-limits.partner.permits=600", "docket.queue-rate-limits.partner.period=1m").run(ctx ->
                assertThat(ctx.getBean(Docket.class).admin().rateLimits()).extracting(RateLimitSettings::limit)
                        .containsExactly(RateLimit.ofKind("mail", 5, Duration.ofSeconds(1)).perTenantBudgets(),
                                RateLimit.ofQueue("partner", 600, Duration.ofMinutes(1))));
        runner.withPropertyValues("docket.kinds.mail.rate-limit.permits=0", "docket.kinds.mail.rate-limit.period=1s")
                .run(ctx -> assertThat(findCause(ctx.getStartupFailure()))
                        .hasMessageContaining("docket.kinds.mail.rate-limit").hasMessageContaining("permits must be between"));
    }

    @Test
    void aValueOfTheWrongTypeFailsBindingNamingTheProperty() {
        runner.withPropertyValues("docket.worker.shutdown-grace=soon").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(findCause(ctx.getStartupFailure(), BindException.class))
                    .hasMessageContaining("docket.worker.shutdown-grace");
        });
    }

    @Test
    void theFailureAnalyzerSaysWhatToCorrect() {
        runner.withPropertyValues("docket.worker.lease=10ms").run(ctx -> {
            InvalidDocketPropertyException e = findCause(ctx.getStartupFailure());
            FailureAnalysis analysis = new InvalidDocketPropertyFailureAnalyzer().analyze(ctx.getStartupFailure());
            assertThat(analysis.getDescription()).contains("docket.worker.lease").contains("PT0.01S");
            assertThat(analysis.getAction()).contains("Correct docket.worker.lease");
            assertThat(e.property()).isEqualTo("docket.worker.lease");
        });
    }

    @Test
    void aDocketHandlerBeanThatIsNoJobHandlerFailsStartup() {
        runner.withUserConfiguration(NotAHandler.class).run(ctx -> assertThat(ctx.getStartupFailure())
                .rootCause().hasMessageContaining("bean 'notAHandler' is annotated @DocketHandler(\"note\")")
                .hasMessageContaining("does not implement dev.docket.JobHandler"));
    }

    @Test
    void aRawHandlerWithoutAJobKindFailsStartupSayingHowToFixIt() {
        runner.withUserConfiguration(RawHandler.class).run(ctx -> assertThat(ctx.getStartupFailure())
                .rootCause().hasMessageContaining("cannot tell its payload type"));
    }

    @Test
    void theHealthIndicatorIsAbsentWithoutActuatorOrWhenSwitchedOff() {
        runner.run(ctx -> assertThat(ctx).hasSingleBean(DocketHealthIndicator.class));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(DocketHealthIndicator.class));
        runner.withPropertyValues("management.health.docket.enabled=false")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(DocketHealthIndicator.class));
    }

    @Test
    void withTheWorkerDisabledNothingRunsUntilATestRunsTheReadyJobsOnItsThread() {
        runner.withUserConfiguration(NoteHandler.class)
                .withPropertyValues("docket.migrate=true", "docket.worker.enabled=false").run(ctx -> {
                    DocketWorkers workers = ctx.getBean(DocketWorkers.class);
                    assertThat(workers.isRunning()).isFalse();
                    long id = ctx.getBean(Docket.class).enqueue("note", new Note("hello"));
                    assertThat(workers.builder().runReadyJobs()).extracting(JobRun::jobId, JobRun::result)
                            .containsExactly(org.assertj.core.groups.Tuple.tuple(id, JobRun.Result.COMPLETED));
                    assertThat(ctx.getBean(NoteHandler.class).last).isEqualTo("hello");
                });
    }

    @Test
    void withoutHandlerBeansTheWorkerRunsMaintenanceOnly() {
        runner.withPropertyValues("docket.migrate=true", "docket.worker.enabled=true").run(ctx -> {
            DocketWorkers workers = ctx.getBean(DocketWorkers.class);
            assertThat(workers.isRunning()).isTrue();
            assertThat(workers.worker().orElseThrow().inFlight()).isZero();
        });
        runner.withPropertyValues("docket.worker.enabled=true", "docket.worker.maintenance=false")
                .run(ctx -> assertThat(ctx.getBean(DocketWorkers.class).isRunning()).isFalse());
    }

    private void assertRefused(String property, String name, String rule) {
        runner.withPropertyValues(property).run(ctx -> {
            assertThat(ctx).hasFailed();
            InvalidDocketPropertyException e = findCause(ctx.getStartupFailure());
            assertThat(e.property()).isEqualTo(name);
            assertThat(e).hasMessageContaining(name).hasMessageContaining(rule);
        });
    }

    private static InvalidDocketPropertyException findCause(Throwable failure) {
        return findCause(failure, InvalidDocketPropertyException.class);
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + failure, failure);
    }

    @Configuration(proxyBeanMethods = false)
    static class NotAHandler {
        @Bean
        @DocketHandler("note")
        Object notAHandler() {
            return new Object();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RawHandler {
        @Bean
        @DocketHandler("note")
        @SuppressWarnings("rawtypes")
        JobHandler rawHandler() {
            return (payload, ctx) -> { };
        }
    }

    @DocketHandler("note")
    static class NoteHandler implements JobHandler<Note> {
        volatile String last;

        @Override
        public void handle(Note note, dev.docket.JobContext ctx) {
            last = note.text();
        }
    }
}
