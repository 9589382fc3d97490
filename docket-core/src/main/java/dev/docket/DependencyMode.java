package dev.docket;

/**
 * When a job that depends on other jobs ({@link JobOptions.Builder#dependsOn}) runs, and what happens to
 * it when one of them fails. Whatever the mode, the job is {@link JobState#WAITING} (not claimable) until
 * its dependencies settle it, and it is settled in the same transaction that finishes the dependency
 * that decides it: there is no polling delay, and concurrent completions cannot lose the wake-up.
 */
public enum DependencyMode {
    /**
     * The default: runs once every dependency has completed; a dependency that dies or is cancelled
     * cancels the job, with {@code docket.cancelReason} in its metadata naming the dependency (and the
     * job's own dependents are settled the same way in turn).
     */
    ALL_COMPLETED,
    /**
     * Like {@link #ALL_COMPLETED}, but a dependency that dies keeps the job waiting for a replay of the
     * dead job ({@link DocketAdmin#replayDead}); once it completes the job runs. A cancelled dependency
     * (which cannot come back) still cancels the job.
     */
    WAIT_FOR_REPLAY,
    /** Runs once every dependency has finished, completed, dead or cancelled: a batch's "all finished" callback. */
    ALL_FINISHED,
    /**
     * Runs once, as soon as the first dependency dies; cancelled once all have finished and none died:
     * a batch's "any died" callback.
     */
    ANY_DIED;

    /** The name the database stores (job_dependencies.mode). */
    String sqlName() {
        return switch (this) {
            case ALL_COMPLETED -> "succeeded";
            case WAIT_FOR_REPLAY -> "wait";
            case ALL_FINISHED -> "finished";
            case ANY_DIED -> "any_died";
        };
    }
}
