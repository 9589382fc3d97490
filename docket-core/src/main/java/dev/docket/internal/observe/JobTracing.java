package dev.docket.internal.observe;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Outcome;
import java.util.Map;

/**
 * Trace context across a job's life: captured at enqueue into the job's metadata, and continued by
 * each attempt. Its types are Docket's own, so that nothing here needs OpenTelemetry;
 * {@link OtelJobTracing} is the implementation, made only when the OpenTelemetry API is on the class
 * path.
 */
interface JobTracing {

    /** {@code metadata} with the current trace context added, or {@code metadata} itself when there is none. */
    Map<String, String> withTraceContext(Map<String, String> metadata);

    /**
     * Starts the span of one attempt, current on the calling thread until {@link TracedAttempt#end};
     * null when nothing records spans.
     */
    TracedAttempt start(ClaimedJob job);

    /** One attempt's span. */
    interface TracedAttempt {

        /** The handler (or the payload's decoding) threw {@code e}. */
        void failed(Throwable e);

        /** The handler's latest progress, from 0 to 1. */
        void progress(double fraction);

        /** The attempt is over with {@code outcome} (null: put back to wait for a newer worker). */
        void end(Outcome outcome);
    }
}
