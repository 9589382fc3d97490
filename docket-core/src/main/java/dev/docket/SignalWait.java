package dev.docket;

import java.time.Instant;

/**
 * What a {@link JobState#WAITING} job waits for when it waits for a signal ({@link JobInfo#signalWait()}).
 *
 * @param signal    the name of the signal it waits for
 * @param since     when the wait began (its enqueue, or the attempt that called {@link JobContext#awaitSignal})
 * @param deadline  when the wait times out, or {@code null} for a wait without a timeout
 * @param onTimeout what happens then, or {@code null} for a wait without a timeout
 */
public record SignalWait(String signal, Instant since, Instant deadline, SignalTimeout onTimeout) {
}
