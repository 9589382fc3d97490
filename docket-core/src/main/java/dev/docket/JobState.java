package dev.docket;

/** Where a job is in its life. The first four are live (in the jobs table); the rest are final. */
public enum JobState {
    /** Waiting for its {@code runAt} (enqueued for the future, or waiting out a retry backoff). */
    SCHEDULED,
    /** Due and waiting for a worker. */
    READY,
    /** Claimed by a worker that holds its lease. */
    RUNNING,
    /**
     * Waiting for something other than time, outside the claim's reach: behind the head of its
     * sequence ({@link JobOptions.Builder#sequenceKey}), for a sequence halted by a dead job, for the
     * jobs it depends on ({@link JobOptions.Builder#dependsOn}), or for a signal
     * ({@link JobOptions.Builder#awaitSignal}, {@link JobContext#awaitSignal}; {@link JobInfo#signalWait()}).
     * It holds no worker slot and no lease.
     */
    WAITING,
    /** Its handler returned; the job is in the history table. */
    COMPLETED,
    /** Cancelled before it completed; the job is in the history table. */
    CANCELLED,
    /** Failed permanently or ran out of attempts; the job is in the dead-letter table. */
    DEAD;

    /** Whether the job can still run (it is in the live jobs table). */
    public boolean isLive() {
        return this == SCHEDULED || this == READY || this == RUNNING || this == WAITING;
    }
}
