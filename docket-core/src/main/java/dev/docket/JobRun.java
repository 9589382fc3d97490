package dev.docket;

/**
 * What became of one job run on the calling thread by {@link Worker.Builder#runReadyJobs()}.
 *
 * @param jobId   the job's id
 * @param kind    its kind
 * @param queue   its queue
 * @param attempt the attempt this run was (1 for a job's first run)
 * @param result  what the run did to the job
 * @param error   the error recorded for {@link Result#RETRYING} and {@link Result#DEAD} (the handler's
 *                exception with its stack, or why the job cannot run), else null
 */
public record JobRun(long jobId, String kind, String queue, int attempt, Result result, String error) {

    /** What a run did to its job. */
    public enum Result {
        /** The handler returned: the job is completed. */
        COMPLETED,
        /** The handler threw: the job is scheduled again after its backoff (not run again by the same call). */
        RETRYING,
        /** The job went to the dead-letter table: a permanent failure, its last attempt, or an unreadable payload. */
        DEAD,
        /** The handler called {@link JobContext#snooze}: the job is scheduled again, its attempt given back. */
        SNOOZED,
        /** Its payload version is newer than the handler reads: put back to wait for a worker that reads it. */
        AWAITING_NEWER_VERSION,
        /** The job was cancelled or rescued while it ran: its outcome was discarded. */
        LEASE_LOST,
        /**
         * The handler called {@link JobContext#awaitSignal}: the job waits for the signal, its attempt given back
         * (or, with that signal kept already, is ready again and runs again in the same call).
         */
        AWAITING_SIGNAL
    }

    /** Whether the handler returned and the job is completed. */
    public boolean completed() {
        return result == Result.COMPLETED;
    }

    @Override
    public String toString() {
        return "JobRun[job " + jobId + " (" + kind + ", queue " + queue + ", attempt " + attempt + "): " + result
                + (error == null ? "" : ": " + error.lines().findFirst().orElse("")) + "]";
    }
}
