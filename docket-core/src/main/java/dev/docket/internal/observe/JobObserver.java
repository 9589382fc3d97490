package dev.docket.internal.observe;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The hooks through which enqueue, the producer, the executor and the completer report to metrics and
 * traces. {@link #NONE} (no registry, no OpenTelemetry) makes each hook a branch on a null field:
 * no clock read, no allocation, no statement.
 */
public final class JobObserver {

    /** Observes nothing. */
    public static final JobObserver NONE = new JobObserver(null, null);
    private static final Runnable NOTHING = () -> { };
    private static final String OPENTELEMETRY_API = "io.opentelemetry.api.trace.Span";

    private final JobMetrics metrics;
    private final JobTracing tracing;

    private JobObserver(JobMetrics metrics, JobTracing tracing) {
        this.metrics = metrics;
        this.tracing = tracing;
    }

    /**
     * The observer of a Docket.
     *
     * @param meterRegistry a Micrometer {@code MeterRegistry}, or null for no metrics
     * @param kinds         the bounded kind label of the metrics, and of the spans' names and label attributes
     * @param openTelemetry an {@code OpenTelemetry}, or null for the global one when the API is on the class path
     */
    public static JobObserver create(Object meterRegistry, KindLabels kinds, Object openTelemetry) {
        JobMetrics metrics = meterRegistry == null ? null : MicrometerJobMetrics.of(meterRegistry, kinds);
        JobTracing tracing = openTelemetry != null ? OtelJobTracing.of(openTelemetry, kinds)
                : onClassPath(OPENTELEMETRY_API) ? OtelJobTracing.of(null, kinds) : null;
        return metrics == null && tracing == null ? NONE : new JobObserver(metrics, tracing);
    }

    private static boolean onClassPath(String className) {
        try {
            Class.forName(className, false, JobObserver.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Enqueue: {@code metadata} with the caller's trace context, if any. */
    public Map<String, String> withTraceContext(Map<String, String> metadata) {
        return tracing == null ? metadata : tracing.withTraceContext(metadata);
    }

    /** Producer: a claim starts; pass the result to {@link #claimed}. */
    public long claimStarting() {
        return metrics == null ? 0 : System.nanoTime();
    }

    /** Producer: a claim that started at {@code startedNanos} took {@code jobs}. */
    public void claimed(String queue, long startedNanos, List<ClaimedJob> jobs, Duration lease,
                        Map<String, Duration> kindLeases) {
        if (metrics != null) {
            metrics.claimed(queue, startedNanos, jobs, lease, kindLeases);
        }
    }

    /** Producer: a rate-limited claim of {@code queue} found a limit out of permits. */
    public void rateLimited(String queue) {
        if (metrics != null) {
            metrics.rateLimited(queue);
        }
    }

    /** Executor, on the handler's thread: an attempt starts. */
    public AttemptObservation attemptStarting(ClaimedJob job) {
        if (metrics == null && tracing == null) {
            return AttemptObservation.NONE;
        }
        JobTracing.TracedAttempt span = tracing == null ? null : tracing.start(job);
        if (metrics == null && span == null) {
            return AttemptObservation.NONE;
        }
        return new AttemptObservation(job, metrics, span);
    }

    /** Completer callback: {@code job}'s outcome was written. */
    public void written(ClaimedJob job, Outcome outcome) {
        if (metrics != null) {
            metrics.written(job, outcome);
        }
    }

    /** Maintainer: a job whose lease expired went back to ready or, with its attempts used up ({@code dead}), died. */
    public void rescued(String queue, String kind, boolean dead) {
        if (metrics != null) {
            metrics.rescued(queue, kind, dead);
        }
    }

    /** Producer start: see {@link JobMetrics#served}; run the result at its stop. */
    public Runnable served(String queue, int concurrency, IntSupplier busy) {
        return metrics == null ? NOTHING : metrics.served(queue, concurrency, busy);
    }
}
