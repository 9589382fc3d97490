package dev.docket;

import java.util.Optional;

/** What a handler knows about the attempt it is running. */
public interface JobContext {

    /** The job id: an idempotency key for the handler's side effects. */
    long jobId();

    /** This attempt's number, 1 for the first run; {@code (jobId(), attempt())} identifies the attempt. */
    int attempt();

    /** Attempts allowed before the job goes to the dead-letter table. */
    int maxAttempts();

    /** The job's kind. */
    String kind();

    /** The queue the job was claimed from. */
    String queue();

    /** The job's tenant, or {@code null}. */
    String tenant();

    /**
     * Ends this attempt without failing it: once the handler returns, the job goes back to wait for
     * {@code delay} (from the database's clock), with no error recorded and its attempt given back.
     * Use it for "not yet" (a rate limit, a resource still being prepared). If the handler throws
     * after snoozing, the failure wins.
     *
     * @throws IllegalArgumentException if {@code delay} is negative or longer than 365 days
     */
    void snooze(java.time.Duration delay);

    /**
     * Records a small result of this job for the jobs that depend on it ({@link #output}); a later call
     * replaces it, and an attempt that fails and is retried (or whose lease expires) takes its output with
     * it: a completed job's output is what its completing attempt recorded. Kept with the job: it moves to the history when the job completes (and is dropped
     * with it by history retention; with retention 0 nothing is kept), or to the dead-letter table.
     * Treated like a payload: never logged, shown only to roles that may read payloads. Written at
     * once, fenced: an attempt that lost its lease records nothing. {@code null} records JSON null.
     *
     * @throws IllegalArgumentException if the value cannot be written as JSON or is over the payload size limit
     * @throws IllegalStateException    if this attempt no longer holds the job (its lease was lost)
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default void recordOutput(Object value) {
        throw new UnsupportedOperationException("recordOutput needs a worker's JobContext");
    }

    /**
     * The output recorded by the completed job {@code jobId} (typically one this job depends on), mapped
     * to {@code type}; empty when that job recorded none, has not completed, or its history is gone.
     *
     * @throws IllegalArgumentException if the output does not map to {@code type}
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default <T> Optional<T> output(long jobId, Class<T> type) {
        throw new UnsupportedOperationException("output needs a worker's JobContext");
    }

    /** Whether a failure of this attempt sends the job to the dead-letter table. */
    default boolean isLastAttempt() {
        return attempt() >= maxAttempts();
    }
}
