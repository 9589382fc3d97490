package dev.docket;

/** What {@link Docket#signal(long, String, Object)} did with a signal, as of the transaction that sent it. */
public enum SignalDelivery {
    /**
     * The job was waiting for this signal: the wait ended in the sending transaction, and the job is ready
     * (or scheduled, if its run time is still ahead, or still waiting for its dependencies) once that commits.
     */
    RESUMED,
    /**
     * The job is live but was not waiting for this signal (it is scheduled, ready, running, or waits for
     * another): the signal is kept with it, readable by its handler ({@link JobContext#signal}), and the
     * job's next wait for this name takes it at once.
     */
    KEPT,
    /** No live job has this id (unknown, or already completed, cancelled or dead): nothing was stored. */
    NO_LIVE_JOB
}
