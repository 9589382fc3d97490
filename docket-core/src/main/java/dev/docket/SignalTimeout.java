package dev.docket;

/**
 * What happens to a job whose wait for a signal reaches its timeout without the signal
 * ({@link JobOptions.Builder#awaitSignal(String, java.time.Duration, SignalTimeout)},
 * {@link JobContext#awaitSignal(String, java.time.Duration, SignalTimeout)}). The maintenance leader
 * takes the path at the deadline (at most a maintenance interval late, and once, across leader changes).
 */
public enum SignalTimeout {
    /**
     * The job runs anyway (ready, or scheduled if its run time is still ahead, or still waiting for its
     * dependencies); its handler finds no such signal ({@link JobContext#signal} is empty). Its metadata's
     * {@code docket.signals} notes the timeout.
     */
    RUN,
    /**
     * The job fails for good: it moves to the dead-letter table, its reason saying which signal did not
     * arrive by when. Replaying it runs it without the wait. Jobs that depend on it settle as for any death.
     */
    FAIL,
    /**
     * The job is cancelled: it moves to the history as cancelled, with {@code docket.cancelReason} in its
     * metadata. Jobs that depend on it settle as for any cancellation.
     */
    CANCEL
}
