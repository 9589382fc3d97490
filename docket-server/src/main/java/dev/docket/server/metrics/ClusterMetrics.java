package dev.docket.server.metrics;

import dev.docket.OutcomeTotals;
import dev.docket.WorkerInfo;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The cluster's figures that the server reads from the database, so that one scrape of one server
 * covers every worker process:
 *
 * <ul>
 *   <li>{@code docket_cluster_jobs_completed_total}, {@code docket_cluster_job_attempts_failed_total} and
 *       {@code docket_cluster_jobs_dead_total} by queue and kind: the outcome counters every worker and the
 *       rescuer write with their outcomes ({@code DocketAdmin.outcomeTotals()}), the kind labelled as the
 *       Docket's metrics label it (bounded, the rest summed as {@code other});</li>
 *   <li>{@code docket_cluster_workers}, {@code docket_cluster_worker_concurrency{queue}} and
 *       {@code docket_cluster_handlers_running}: the live workers of the registry, their slots per queue and
 *       the handlers they ran at their last heartbeats.</li>
 * </ul>
 *
 * A counter never goes down while the server runs: each row keeps the largest total it has read (a
 * database restored from a backup reads lower for a while; the counter then waits for it). Rows are
 * registered once and then only change value (see {@link QueueMetrics} on micrometer issue 6851); a
 * queue whose workers are gone reads 0.
 */
final class ClusterMetrics {

    /** The three counters of one queue and kind label, read by scrapes and raised by refreshes. */
    private static final class Totals {
        private volatile double completed;
        private volatile double failed;
        private volatile double dead;
    }

    /** The live workers' slots on one queue. */
    private static final class Slots {
        private volatile double value;
    }

    private final MeterRegistry registry;
    private final UnaryOperator<String> kindLabel;
    private final Map<Tags, Totals> counters = new ConcurrentHashMap<>();
    private final Map<String, Slots> concurrency = new ConcurrentHashMap<>();
    private volatile double liveWorkers;
    private volatile double handlersRunning;

    ClusterMetrics(MeterRegistry registry, UnaryOperator<String> kindLabel) {
        this.registry = registry;
        this.kindLabel = kindLabel;
        Gauge.builder("docket.cluster.workers", this, c -> c.liveWorkers)
                .description("Live workers in the registry (a heartbeat within three of their intervals)").register(registry);
        Gauge.builder("docket.cluster.handlers.running", this, c -> c.handlersRunning)
                .description("Handlers the live workers were running at their last heartbeats").register(registry);
    }

    /** Sets the counters from {@code totals} and the worker gauges from {@code workers}. */
    void update(List<OutcomeTotals> totals, List<WorkerInfo> workers) {
        Map<Tags, double[]> byLabels = new HashMap<>();
        for (OutcomeTotals t : totals) {
            double[] sums = byLabels.computeIfAbsent(Tags.of("queue", t.queue(), "kind", kindLabel.apply(t.kind())),
                    tags -> new double[3]);
            sums[0] += t.completed();
            sums[1] += t.failedAttempts();
            sums[2] += t.dead();
        }
        byLabels.forEach((tags, sums) -> {
            Totals row = counters.computeIfAbsent(tags, this::register);
            row.completed = Math.max(row.completed, sums[0]);
            row.failed = Math.max(row.failed, sums[1]);
            row.dead = Math.max(row.dead, sums[2]);
        });
        Map<String, Double> slots = new HashMap<>();
        double live = 0;
        double running = 0;
        for (WorkerInfo w : workers) {
            if (w.live()) {
                live++;
                running += w.handlersRunning();
                w.queues().forEach((queue, n) -> slots.merge(queue, (double) n, Double::sum));
            }
        }
        slots.forEach((queue, n) -> concurrency.computeIfAbsent(queue, this::registerQueue).value = n);
        concurrency.forEach((queue, row) -> {
            if (!slots.containsKey(queue)) {
                row.value = 0;
            }
        });
        liveWorkers = live;
        handlersRunning = running;
    }

    private Totals register(Tags tags) {
        Totals row = new Totals();
        FunctionCounter.builder("docket.cluster.jobs.completed", row, r -> r.completed).tags(tags)
                .description("Jobs whose handler returned, in the whole cluster (from the database)").register(registry);
        FunctionCounter.builder("docket.cluster.job.attempts.failed", row, r -> r.failed).tags(tags)
                .description("Attempts that failed (retried later or dead), leases lost included, in the whole cluster")
                .register(registry);
        FunctionCounter.builder("docket.cluster.jobs.dead", row, r -> r.dead).tags(tags)
                .description("Jobs moved to the dead-letter table, in the whole cluster").register(registry);
        return row;
    }

    private Slots registerQueue(String queue) {
        Slots row = new Slots();
        Gauge.builder("docket.cluster.worker.concurrency", row, r -> r.value).tag("queue", queue)
                .description("Handler slots of the live workers serving the queue").register(registry);
        return row;
    }
}
