package dev.docket.internal.observe;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Outcome;

/** One attempt as metrics and traces see it: started on the handler's thread, ended there. */
public final class AttemptObservation {

    static final AttemptObservation NONE = new AttemptObservation(null, null, null);

    private final ClaimedJob job;
    private final JobMetrics metrics;
    private final JobTracing.TracedAttempt span;
    private final long startedNanos;
    private volatile boolean progressed;

    AttemptObservation(ClaimedJob job, JobMetrics metrics, JobTracing.TracedAttempt span) {
        this.job = job;
        this.metrics = metrics;
        this.span = span;
        this.startedNanos = metrics == null ? 0 : System.nanoTime();
    }

    /** The handler, or the payload's decoding, threw {@code e}. */
    public void failed(Throwable e) {
        if (span != null) {
            span.failed(e);
        }
    }

    /**
     * The handler reported how far it has come ({@code JobContext.progress}): the span keeps the latest
     * fraction, the metrics count the attempt among its kind's running attempts that report progress.
     */
    public void progress(double fraction) {
        if (metrics != null) {
            progressed = true;
            metrics.progressed(job, fraction);
        }
        if (span != null) {
            span.progress(fraction);
        }
    }

    /** The attempt is over; {@code outcome} null when the job was put back to wait for a newer worker. */
    public void ended(Outcome outcome) {
        if (metrics != null) {
            metrics.ran(job, System.nanoTime() - startedNanos);
            if (progressed) {
                metrics.progressEnded(job);
            }
        }
        if (span != null) {
            span.end(outcome);
        }
    }
}
