package dev.docket.internal.observe;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

/**
 * A worker's meters in a Micrometer registry: outcome counters, and histograms of pickup latency, run
 * duration and claim duration, in seconds with fixed buckets (so {@code histogram_quantile} works
 * across instances). Meters are made once per queue and kind label and then only looked up.
 */
final class MicrometerJobMetrics implements JobMetrics {

    /** Pickup and run times: from a millisecond to an hour. */
    private static final Duration[] JOB_BUCKETS = durations(1, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000,
            10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000);
    /** A claim is one statement: from half a millisecond to five seconds. */
    private static final Duration[] CLAIM_BUCKETS = durations(1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 5_000);

    private final MeterRegistry registry;
    private final KindLabels kinds;
    private final ConcurrentMap<String, Timer> claimTimers = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Counter> rateLimitedCounters = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, ConcurrentMap<String, KindMeters>> kindMeters = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, ServedQueue> servedQueues = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, ConcurrentMap<String, RunningProgress>> progress = new ConcurrentHashMap<>();

    /** The meters of one queue and kind label. */
    private record KindMeters(Counter completed, Counter failed, Counter dead, Timer pickup, Timer run) {
    }

    private MicrometerJobMetrics(MeterRegistry registry, KindLabels kinds) {
        this.registry = registry;
        this.kinds = kinds;
    }

    /** Casts here, so that callers need not name Micrometer's types. */
    static JobMetrics of(Object registry, KindLabels kinds) {
        return new MicrometerJobMetrics((MeterRegistry) registry, kinds);
    }

    /**
     * The pickup latency is measured by the database clock: from the job's due time ({@code run_at})
     * to its claim, which is its new lease's end minus the lease the claim gave it.
     */
    @Override
    public void claimed(String queue, long startedNanos, List<ClaimedJob> jobs, Duration lease,
                        Map<String, Duration> kindLeases) {
        claimTimers.computeIfAbsent(queue, this::claimTimer).record(System.nanoTime() - startedNanos, TimeUnit.NANOSECONDS);
        for (ClaimedJob job : jobs) {
            Instant claimedAt = job.leaseUntil().minus(kindLeases.getOrDefault(job.kind(), lease));
            long nanos = Math.max(0, Duration.between(job.runAt(), claimedAt).toNanos());
            meters(job).pickup().record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void rateLimited(String queue) {
        rateLimitedCounters.computeIfAbsent(queue, q -> Counter.builder("docket.claims.rate.limited").tag("queue", q)
                .description("claims that found a rate limit they apply out of permits").register(registry)).increment();
    }

    @Override
    public void ran(ClaimedJob job, long nanos) {
        meters(job).run().record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void progressed(ClaimedJob job, double fraction) {
        progress(job).report(job.id(), fraction);
    }

    @Override
    public void progressEnded(ClaimedJob job) {
        progress(job).end(job.id());
    }

    @Override
    public void written(ClaimedJob job, Outcome outcome) {
        KindMeters m = meters(job);
        switch (outcome) {
            case Outcome.Completed c -> m.completed().increment();
            case Outcome.Retry r -> m.failed().increment();
            case Outcome.Dead d -> {
                m.failed().increment();
                m.dead().increment();
            }
            case Outcome.Snoozed s -> { }
            case Outcome.Released r -> { }
            case Outcome.AwaitSignal a -> { }
        }
    }

    @Override
    public void rescued(String queue, String kind, boolean dead) {
        KindMeters m = meters(queue, kind);
        m.failed().increment();
        if (dead) {
            m.dead().increment();
        }
    }

    @Override
    public Runnable served(String queue, int concurrency, IntSupplier busy) {
        // A gauge per worker would collide when one process runs two workers on a queue: a holder sums them.
        ServedQueue served = servedQueues.computeIfAbsent(queue, this::servedQueue);
        ServedQueue.Slots slots = served.add(concurrency, busy);
        return () -> served.remove(slots);
    }

    private ServedQueue servedQueue(String queue) {
        ServedQueue served = new ServedQueue();
        Gauge.builder("docket.worker.concurrency", served, ServedQueue::concurrency).tag("queue", queue)
                .description("Handler slots of the workers in this process serving the queue").register(registry);
        Gauge.builder("docket.worker.busy", served, ServedQueue::busy).tag("queue", queue)
                .description("Handlers running now in this process's workers of the queue").register(registry);
        return served;
    }

    /** Made at a kind's first progress report, so kinds that never report one have no such meters. */
    private RunningProgress progress(ClaimedJob job) {
        return progress.computeIfAbsent(job.queue(), q -> new ConcurrentHashMap<>())
                .computeIfAbsent(kinds.label(job.kind()), label -> runningProgress(job.queue(), label));
    }

    private RunningProgress runningProgress(String queue, String kind) {
        RunningProgress running = new RunningProgress();
        Tags tags = Tags.of("queue", queue, "kind", kind);
        Gauge.builder("docket.job.progress.lowest", running, RunningProgress::lowest).tags(tags)
                .description("The least fraction done among this process's running attempts that report progress "
                        + "(NaN when none runs)").register(registry);
        Gauge.builder("docket.jobs.reporting.progress", running, RunningProgress::count).tags(tags)
                .description("This process's running attempts that have reported progress").register(registry);
        return running;
    }

    private KindMeters meters(ClaimedJob job) {
        return meters(job.queue(), job.kind());
    }

    private KindMeters meters(String queue, String kind) {
        return kindMeters.computeIfAbsent(queue, q -> new ConcurrentHashMap<>())
                .computeIfAbsent(kinds.label(kind), label -> kindMeters(queue, label));
    }

    private KindMeters kindMeters(String queue, String kind) {
        Tags tags = Tags.of("queue", queue, "kind", kind);
        return new KindMeters(
                Counter.builder("docket.jobs.completed").tags(tags)
                        .description("Jobs whose handler returned, as written by this process's workers").register(registry),
                Counter.builder("docket.job.attempts.failed").tags(tags)
                        .description("Attempts that failed (retried later or dead), leases lost included").register(registry),
                Counter.builder("docket.jobs.dead").tags(tags)
                        .description("Jobs this process moved to the dead-letter table").register(registry),
                Timer.builder("docket.job.pickup.latency").tags(tags).serviceLevelObjectives(JOB_BUCKETS)
                        .description("From a job's due time to its claim (database clock)").register(registry),
                Timer.builder("docket.job.run.duration").tags(tags).serviceLevelObjectives(JOB_BUCKETS)
                        .description("One attempt's handler run, payload decoding included").register(registry));
    }

    private Timer claimTimer(String queue) {
        return Timer.builder("docket.claim.duration").tag("queue", queue).serviceLevelObjectives(CLAIM_BUCKETS)
                .description("One claim statement, from the worker's side").register(registry);
    }

    private static Duration[] durations(long... millis) {
        Duration[] d = new Duration[millis.length + 1];
        d[0] = Duration.ofNanos(500_000);
        for (int i = 0; i < millis.length; i++) {
            d[i + 1] = Duration.ofMillis(millis[i]);
        }
        return d;
    }
}
