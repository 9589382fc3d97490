package dev.docket;

/**
 * Where a job is in its life. {@code SCHEDULED}, {@code READY}, {@code RUNNING} and {@code WAITING} are
 * live (in the jobs table); {@code COMPLETED}, {@code CANCELLED} and {@code DEAD} are final.
 */
public enum JobState {
    /** Waiting for its {@code runAt} (enqueued for the future, or waiting out a retry backoff). */
    SCHEDULED,
    /** Due and waiting for a worker. */
    READY,
    /** Claimed by a worker that holds its lease. */
    RUNNING,
    /** Its handler returned; the job is in the history table. */
    COMPLETED,
    /** Cancelled before it completed; the job is in the history table. */
    CANCELLED,
    /** Failed permanently or ran out of attempts; the job is in the dead-letter table. */
    DEAD,
    /**
     * Waiting for something other than time, such as the jobs it depends on ({@link JobOptions.Builder#dependsOn});
     * not claimable until that is settled.
     */
    WAITING;

    /** Whether the job can still run (it is in the live jobs table). */
    public boolean isLive() {
        return this == SCHEDULED || this == READY || this == RUNNING || this == WAITING;
    }
}
