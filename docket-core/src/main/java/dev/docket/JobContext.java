package dev.docket;

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

    /** Whether a failure of this attempt sends the job to the dead-letter table. */
    default boolean isLastAttempt() {
        return attempt() >= maxAttempts();
    }
}
