package dev.docket;

/**
 * Runs one kind of job. Returning completes the job; throwing {@link PermanentJobFailure} sends it
 * straight to the dead-letter table; any other exception fails the attempt, which is retried with
 * backoff until the job's max attempts are used up.
 *
 * <p>Delivery is at least once: a job whose worker dies runs again, so handlers must be idempotent.
 * {@code (ctx.jobId(), ctx.attempt())} identifies one attempt; {@code ctx.jobId()} the job.
 * A handler runs on a virtual thread and should return promptly when interrupted (shutdown, lost lease).
 *
 * @param <T> the payload type, mapped from the job's JSON with Jackson
 */
@FunctionalInterface
public interface JobHandler<T> {

    void handle(T payload, JobContext ctx) throws Exception;
}
