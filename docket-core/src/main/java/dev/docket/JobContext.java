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

    /**
     * Ends this attempt without failing it: once the handler returns, the job goes back to wait for
     * {@code delay} (from the database's clock), with no error recorded and its attempt given back.
     * Use it for "not yet" (a rate limit, a resource still being prepared). If the handler throws
     * after snoozing, the failure wins.
     *
     * @throws IllegalArgumentException if {@code delay} is negative or longer than 365 days
     */
    void snooze(java.time.Duration delay);

    /** Whether a failure of this attempt sends the job to the dead-letter table. */
    default boolean isLastAttempt() {
        return attempt() >= maxAttempts();
    }
}
