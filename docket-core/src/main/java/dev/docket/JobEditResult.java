package dev.docket;

/**
 * What became of an operator's edit ({@link DocketAdmin#editJob}, {@link DocketAdmin#runNow}).
 *
 * @param id      the job
 * @param outcome whether the edit was applied
 * @param state   the job's state after the edit when {@link Outcome#EDITED}; the state that refused it when
 *                {@link Outcome#NOT_EDITABLE} (a job that finished is {@link JobState#COMPLETED},
 *                {@link JobState#CANCELLED} or {@link JobState#DEAD}); {@code null} for {@link Outcome#NO_SUCH_JOB}
 * @param message why it was refused, for a person; {@code null} when edited
 */
public record JobEditResult(long id, Outcome outcome, JobState state, String message) {

    /** Whether an edit was applied. */
    public enum Outcome {
        /** Applied whole, and noted in the job's metadata. */
        EDITED,
        /** No job has this id (it may have been pruned from the history). */
        NO_SUCH_JOB,
        /**
         * Refused, nothing changed: the job started (running, or finished), or it waits and the edit would
         * change when it runs ({@link #message()} says which).
         */
        NOT_EDITABLE
    }

    /** Whether the edit was applied. */
    public boolean edited() {
        return outcome == Outcome.EDITED;
    }
}
