package dev.docket;

import java.time.Instant;

/**
 * One failed attempt in a job's error history.
 *
 * @param attempt the attempt that failed (1 for the first run)
 * @param at      when the failure was recorded, by the database clock
 * @param message the error: exception class and message, or why the attempt was lost
 * @param worker  the worker that ran the attempt, or {@code null} if unknown
 */
public record JobError(int attempt, Instant at, String message, String worker) {
}
