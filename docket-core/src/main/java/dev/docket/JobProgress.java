package dev.docket;

import java.time.Instant;

/**
 * How far a job has come, as its handler last reported it ({@link JobContext#progress}); kept with the job,
 * also in the history and the dead-letter table ({@link JobInfo#progress()}).
 *
 * @param fraction from 0 to 1
 * @param message  what the handler said with it, or {@code null}
 * @param attempt  the attempt that reported it
 * @param at       when it was written (the database's clock)
 */
public record JobProgress(double fraction, String message, int attempt, Instant at) {
}
