package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The library's meters, in a registry given to the builder, against real jobs. */
class MetricsTest extends DocketTest {

    record Task(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final RetryPolicy FAST_RETRY = new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(1), 0);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private Docket metered(int kindLimit) {
        return docket(b -> b.meterRegistry(registry).metricsKindLimit(kindLimit).metricsInterval(Duration.ofMillis(100))
                .defaultRetryPolicy(FAST_RETRY));
    }

    private double count(String name, String queue, String kind) {
        Counter c = registry.find(name).tags("queue", queue, "kind", kind).counter();
        return c == null ? 0 : c.count();
    }

    private Timer timer(String name, String kind) {
        return registry.find(name).tags("queue", "default", "kind", kind).timer();
    }

    private double gauge(String name, String... tags) {
        Gauge g = registry.find(name).tags(tags).gauge();
        return g == null ? Double.NaN : g.value();
    }

    @Test
    void countersCountOutcomesAsWritten() {
        Docket docket = metered(100);
        AtomicInteger flakyCalls = new AtomicInteger();
        worker(docket, w -> w.queue("default", 4).maintenanceInterval(Duration.ofMillis(50))
                .handler("ok", Task.class, (t, ctx) -> { })
                .handler("flaky", Task.class, (t, ctx) -> {
                    if (flakyCalls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                })
                .handler("doomed", Task.class, (t, ctx) -> {
                    throw new PermanentJobFailure("never works");
                }));
        docket.enqueue("ok", new Task(1));
        docket.enqueue("flaky", new Task(2));
        docket.enqueue("doomed", new Task(3));

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(count("docket.jobs.completed", "default", "ok")).isEqualTo(1);
            assertThat(count("docket.jobs.completed", "default", "flaky")).isEqualTo(1);
            assertThat(count("docket.jobs.dead", "default", "doomed")).isEqualTo(1);
        });
        assertThat(count("docket.job.attempts.failed", "default", "flaky")).isEqualTo(1);
        assertThat(count("docket.job.attempts.failed", "default", "doomed")).isEqualTo(1);
        assertThat(count("docket.job.attempts.failed", "default", "ok")).isZero();
        assertThat(count("docket.jobs.completed", "default", "doomed")).isZero();
        assertThat(count("docket.jobs.dead", "default", "flaky")).isZero();
        // Every attempt is picked up and run once: the flaky job twice.
        assertThat(timer("docket.job.pickup.latency", "flaky").count()).isEqualTo(2);
        assertThat(timer("docket.job.run.duration", "flaky").count()).isEqualTo(2);
        assertThat(timer("docket.job.run.duration", "ok").count()).isEqualTo(1);
        assertThat(registry.find("docket.claim.duration").tags("queue", "default").timer().count()).isPositive();
        assertThat(gauge("docket.worker.concurrency", "queue", "default")).isEqualTo(4);
    }

    /** Running attempts that report progress show as two gauges per kind; an ended attempt leaves them. */
    @Test
    void progressOfRunningAttemptsIsGaugedPerKind() throws Exception {
        Docket docket = metered(100);
        CountDownLatch reported = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 4)
                .handler("long", Task.class, (t, ctx) -> {
                    ctx.progress(t.n() / 4.0, "step " + t.n());
                    reported.countDown();
                    release.await();
                })
                .handler("quiet", Task.class, (t, ctx) -> { }));
        docket.enqueue("long", new Task(1));
        docket.enqueue("long", new Task(3));
        docket.enqueue("quiet", new Task(0));

        assertThat(reported.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(gauge("docket.job.progress.lowest", "queue", "default", "kind", "long")).isEqualTo(0.25);
        assertThat(gauge("docket.jobs.reporting.progress", "queue", "default", "kind", "long")).isEqualTo(2);
        release.countDown();
        await().atMost(WAIT).until(() -> count("docket.jobs.completed", "default", "long") == 2
                && count("docket.jobs.completed", "default", "quiet") == 1);
        await().atMost(WAIT).until(() -> gauge("docket.jobs.reporting.progress", "queue", "default", "kind", "long") == 0);
        assertThat(gauge("docket.job.progress.lowest", "queue", "default", "kind", "long")).isNaN();
        // A kind that never reports progress has no such gauges.
        assertThat(registry.find("docket.job.progress.lowest").tags("kind", "quiet").gauge()).isNull();
    }

    /** Jobs whose worker died: the rescuer's lost attempts and deaths are counted by the maintenance leader's process. */
    @Test
    void rescuedJobsCountAsFailedAttemptsAndDeaths() {
        Docket docket = metered(100);
        long lost = docket.enqueue("lost", new Task(1));
        long poison = docket.enqueue("poison", new Task(2), JobOptions.builder().maxAttempts(1).build());
        execute("UPDATE {s}.jobs SET state = 'running', attempt = 1, attempted_at = now() - interval '1 minute', "
                + "locked_by = 'a-dead-worker', lease_until = now() - interval '1 second' WHERE id IN (" + lost + ", "
                + poison + ")");
        worker(docket, w -> w.maintenanceInterval(Duration.ofMillis(50)));

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(count("docket.job.attempts.failed", "default", "lost")).isEqualTo(1);
            assertThat(count("docket.job.attempts.failed", "default", "poison")).isEqualTo(1);
            assertThat(count("docket.jobs.dead", "default", "poison")).isEqualTo(1);
        });
        assertThat(count("docket.jobs.dead", "default", "lost")).isZero();
        assertThat(docket.job(poison).orElseThrow().state()).isEqualTo(JobState.DEAD);
    }

    /** A worker process of a fleet keeps its own meters and reads nothing from the database for gauges. */
    @Test
    void withoutDatabaseGaugesOnlyThisProcesssMetersAreKept() {
        Docket docket = docket(b -> b.meterRegistry(registry).metricsInterval(Duration.ofMillis(100)).databaseGauges(false));
        docket.enqueue("ok", new Task(1));
        docket.enqueue("waits", new Task(2), JobOptions.builder().queue("unserved").build());
        worker(docket, w -> w.queue("default", 2).handler("ok", Task.class, (t, ctx) -> { }));

        await().atMost(WAIT).until(() -> count("docket.jobs.completed", "default", "ok") == 1);
        // The vacuum-debt gauge is registered when the database gauges are made, before their first read:
        // its absence shows they were never made, so nothing reads the database for them.
        assertThat(registry.find("docket.jobs.table.dead.tuples").gauge()).isNull();
        assertThat(registry.find("docket.jobs").gauges()).isEmpty();
        assertThat(registry.find("docket.queue.backlog").gauges()).isEmpty();
        assertThat(registry.find("docket.queue.lag").gauges()).isEmpty();
        assertThat(gauge("docket.worker.concurrency", "queue", "default")).isEqualTo(2);
    }

    /** Pickup latency runs from the job's due time to its claim by the database clock, not from the enqueue call. */
    @Test
    void pickupLatencyIsMeasuredFromTheDueTime() {
        Docket docket = metered(100);
        long id = docket.enqueue("late", new Task(1));
        execute("UPDATE {s}.jobs SET run_at = now() - interval '90 seconds' WHERE id = " + id);
        worker(docket, w -> w.queue("default", 1).handler("late", Task.class, (t, ctx) -> { }));

        await().atMost(WAIT).until(() -> count("docket.jobs.completed", "default", "late") == 1);
        Timer pickup = timer("docket.job.pickup.latency", "late");
        assertThat(pickup.count()).isEqualTo(1);
        assertThat(pickup.max(TimeUnit.SECONDS)).isBetween(90.0, 600.0);
    }

    @Test
    void gaugesShowLiveJobsLagAndVacuumDebt() {
        Docket docket = metered(100);
        for (int i = 0; i < 3; i++) {
            docket.enqueue("report", new Task(i), JobOptions.builder().queue("reports").build());
        }
        docket.enqueue("report", new Task(9), JobOptions.builder().queue("reports").delay(Duration.ofHours(1)).build());
        execute("UPDATE {s}.jobs SET run_at = now() - interval '2 minutes' WHERE state = 'ready'");

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(gauge("docket.jobs", "queue", "reports", "kind", "report", "state", "ready")).isEqualTo(3);
            assertThat(gauge("docket.jobs", "queue", "reports", "kind", "report", "state", "scheduled")).isEqualTo(1);
            assertThat(gauge("docket.jobs", "queue", "reports", "kind", "report", "state", "running")).isZero();
            assertThat(gauge("docket.queue.lag", "queue", "reports", "kind", "report")).isBetween(120.0, 600.0);
            assertThat(gauge("docket.jobs.table.dead.tuples")).isGreaterThanOrEqualTo(0);
        });
        assertThat(registry.find("docket.jobs.table.vacuum.age").gauge()).isNotNull();

        // A queue without live jobs reads 0: its gauges stay registered (see GaugeTable).
        execute("DELETE FROM {s}.jobs");
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(gauge("docket.jobs", "queue", "reports", "kind", "report", "state", "ready")).isZero();
            assertThat(gauge("docket.jobs", "queue", "reports", "kind", "report", "state", "scheduled")).isZero();
            assertThat(gauge("docket.queue.lag", "queue", "reports", "kind", "report")).isZero();
        });
    }

    /**
     * A refresh changes the gauges' values in place: removing and re-registering a row, as
     * MultiGauge does, can make a concurrent Prometheus scrape see it twice and fail whole.
     */
    @Test
    void gaugeRowsAreUpdatedInPlaceNotReRegistered() {
        AtomicInteger removed = new AtomicInteger();
        registry.config().onMeterRemoved(m -> removed.incrementAndGet());
        Docket docket = metered(100);
        docket.enqueue("report", new Task(1), JobOptions.builder().queue("reports").build());

        double first = await().atMost(WAIT).until(() -> gauge("docket.queue.lag", "queue", "reports", "kind", "report"),
                lag -> lag > 0);
        await().atMost(WAIT).until(() -> gauge("docket.queue.lag", "queue", "reports", "kind", "report") > first);
        assertThat(removed).hasValue(0);
    }

    /** Kinds beyond the limit share the label "other", in the gauges and in the counters. */
    @Test
    void kindsBeyondTheLimitAreReportedAsOther() {
        Docket docket = metered(2);
        for (String kind : new String[] {"k1", "k2", "k3", "k4"}) {
            docket.enqueue(kind, new Task(1), JobOptions.builder().queue("bounded").build());
        }
        await().atMost(WAIT).untilAsserted(() -> {
            Set<String> kinds = registry.find("docket.jobs").tags("queue", "bounded", "state", "ready").gauges().stream()
                    .map(g -> g.getId().getTag("kind")).collect(Collectors.toSet());
            assertThat(kinds).hasSize(3).contains("other");
            assertThat(gauge("docket.jobs", "queue", "bounded", "kind", "other", "state", "ready")).isEqualTo(2);
        });

        worker(docket, w -> w.queue("bounded", 4).handler("k1", Task.class, (t, ctx) -> { })
                .handler("k2", Task.class, (t, ctx) -> { }).handler("k3", Task.class, (t, ctx) -> { })
                .handler("k4", Task.class, (t, ctx) -> { }));
        await().atMost(WAIT).until(() -> registry.find("docket.jobs.completed").counters().stream()
                .mapToDouble(Counter::count).sum() == 4);
        Set<String> counted = registry.find("docket.jobs.completed").counters().stream()
                .map(c -> c.getId().getTag("kind")).collect(Collectors.toSet());
        assertThat(counted).hasSize(3).contains("other");
        assertThat(count("docket.jobs.completed", "bounded", "other")).isEqualTo(2);
        // The same label for metrics of one's own: a new kind is "other" now, a named one keeps its name.
        assertThat(docket.metricsKindLabel("k5")).isEqualTo("other");
        assertThat(counted).contains(docket.metricsKindLabel("k1").equals("other") ? "other" : "k1");
        assertThatThrownBy(() -> docket.metricsKindLabel(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void withoutARegistryThereAreNoMeters() {
        Docket docket = docket();
        assertThat(docket.meterRegistry()).isEmpty();
        assertThat(metered(100).meterRegistry()).containsSame(registry);
    }

    @Test
    void badMetricsSettingsAreRefused() {
        Docket.Builder b = Docket.builder(dataSource());
        assertThatThrownBy(() -> b.meterRegistry(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.metricsKindLimit(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("metricsKindLimit must be between 1 and 10000, was 0");
        assertThatThrownBy(() -> b.metricsKindLimit(-5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.metricsKindLimit(Integer.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.metricsInterval(Duration.ofMillis(99))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("metricsInterval must be between 100 ms and 1 hour");
        assertThatThrownBy(() -> b.metricsInterval(Duration.ofDays(2))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.metricsInterval(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.metricsInterval(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.openTelemetry(null)).isInstanceOf(NullPointerException.class);
    }
}
