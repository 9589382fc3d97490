package dev.docket.internal.observe;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * What a worker reports to the metrics. Its types are Docket's own, so that the worker's classes
 * load without Micrometer; {@link MicrometerJobMetrics} is the one implementation, made only when
 * the application gave a registry.
 */
public interface JobMetrics {

    /** A claim of {@code queue} that started at {@code startedNanos} ({@link System#nanoTime()}) took {@code jobs}. */
    void claimed(String queue, long startedNanos, List<ClaimedJob> jobs, Duration lease, Map<String, Duration> kindLeases);

    /** A claim of {@code queue} found a rate limit it applies out of permits (jobs may be waiting for one). */
    void rateLimited(String queue);

    /** One attempt's handler (with its payload's decoding) ran for {@code nanos}. */
    void ran(ClaimedJob job, long nanos);

    /** {@code job}'s running attempt reported {@code fraction} (0 to 1) of its work done. */
    void progressed(ClaimedJob job, double fraction);

    /** {@code job}'s attempt, which reported progress, is over. */
    void progressEnded(ClaimedJob job);

    /** The outcome of {@code job}'s attempt was written (not fenced out). */
    void written(ClaimedJob job, Outcome outcome);

    /** The rescuer took a job whose lease expired: a failed attempt, and ({@code dead}) a dead job. */
    void rescued(String queue, String kind, boolean dead);

    /**
     * A worker serves {@code queue} with {@code concurrency} slots, {@code busy} of them running
     * handlers now; until the returned handle is run.
     */
    Runnable served(String queue, int concurrency, IntSupplier busy);
}
