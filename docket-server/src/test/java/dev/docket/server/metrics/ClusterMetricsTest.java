package dev.docket.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.OutcomeTotals;
import dev.docket.WorkerInfo;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cluster's counters and worker gauges as the server registers them. */
class ClusterMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** Names two kinds; the rest are "other", as a Docket with a kind limit of 2 labels them. */
    private final ClusterMetrics cluster = new ClusterMetrics(registry,
            kind -> kind.equals("a") || kind.equals("b") ? kind : "other");

    private double counter(String name, String queue, String kind) {
        FunctionCounter c = registry.find(name).tags("queue", queue, "kind", kind).functionCounter();
        return c == null ? Double.NaN : c.count();
    }

    private static WorkerInfo worker(String id, boolean live, Map<String, Integer> queues, int running) {
        return new WorkerInfo(id, "host", 1, queues, Map.of(), "v", 10, 8, true, true, List.of(), Duration.ofSeconds(10),
                Instant.EPOCH, Instant.EPOCH, live, running, running, 0, 0, Duration.ZERO);
    }

    @Test
    void kindsBeyondTheLabelBoundAreSummedAsOther() {
        cluster.update(List.of(new OutcomeTotals("q", "a", 5, 1, 0), new OutcomeTotals("q", "c", 7, 2, 1),
                new OutcomeTotals("q", "d", 3, 4, 4)), List.of());

        assertThat(counter("docket.cluster.jobs.completed", "q", "a")).isEqualTo(5);
        assertThat(counter("docket.cluster.jobs.completed", "q", "other")).isEqualTo(10);
        assertThat(counter("docket.cluster.job.attempts.failed", "q", "other")).isEqualTo(6);
        assertThat(counter("docket.cluster.jobs.dead", "q", "other")).isEqualTo(5);
        assertThat(registry.find("docket.cluster.jobs.completed").tag("kind", "c").functionCounter()).isNull();
    }

    /** A lower reading (a database restored from a backup) never takes a counter down while the server runs. */
    @Test
    void aCounterNeverGoesDown() {
        cluster.update(List.of(new OutcomeTotals("q", "a", 50, 5, 1)), List.of());
        cluster.update(List.of(new OutcomeTotals("q", "a", 20, 2, 0)), List.of());
        assertThat(counter("docket.cluster.jobs.completed", "q", "a")).isEqualTo(50);
        assertThat(counter("docket.cluster.job.attempts.failed", "q", "a")).isEqualTo(5);
        assertThat(counter("docket.cluster.jobs.dead", "q", "a")).isEqualTo(1);

        cluster.update(List.of(new OutcomeTotals("q", "a", 60, 5, 1)), List.of());
        assertThat(counter("docket.cluster.jobs.completed", "q", "a")).isEqualTo(60);
    }

    @Test
    void liveWorkersSlotsAndRunningHandlersAreSummedAndAStoppedOneCountsNothing() {
        cluster.update(List.of(), List.of(worker("w1", true, Map.of("default", 8, "mail", 2), 3),
                worker("w2", true, Map.of("default", 4), 4), worker("gone", false, Map.of("default", 16, "old", 1), 9)));

        assertThat(registry.get("docket.cluster.workers").gauge().value()).isEqualTo(2);
        assertThat(registry.get("docket.cluster.handlers.running").gauge().value()).isEqualTo(7);
        assertThat(registry.get("docket.cluster.worker.concurrency").tag("queue", "default").gauge().value()).isEqualTo(12);
        assertThat(registry.get("docket.cluster.worker.concurrency").tag("queue", "mail").gauge().value()).isEqualTo(2);
        assertThat(registry.find("docket.cluster.worker.concurrency").tag("queue", "old").gauge()).isNull();

        cluster.update(List.of(), List.of(worker("w2", true, Map.of("default", 4), 0)));
        assertThat(registry.get("docket.cluster.worker.concurrency").tag("queue", "mail").gauge().value()).isZero();
        assertThat(registry.get("docket.cluster.workers").gauge().value()).isEqualTo(1);
    }
}
