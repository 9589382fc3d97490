package dev.docket;

import dev.docket.internal.rules.VersionWaitNote;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of one job, wherever it lives (live table, history or dead-letter table).
 * {@link #toString()} leaves the payload, the output and the signals' payloads out: Docket never lets them
 * reach a log by accident.
 *
 * @param id             the job id
 * @param queue          the queue it runs on
 * @param kind           its kind, which selects the handler
 * @param state          where it is in its life
 * @param priority       smaller runs first within a queue
 * @param attempt        attempts claimed so far (0 before the first run)
 * @param maxAttempts    attempts allowed before it goes to the dead-letter table
 * @param runAt          when it is (or was last) due
 * @param createdAt      when it was enqueued
 * @param attemptedAt    when the last attempt was claimed, or {@code null}
 * @param finishedAt     when it completed, was cancelled or died, or {@code null} while live
 * @param tenant         its fairness key, or {@code null}
 * @param uniqueKey      its unique key, or {@code null}
 * @param lockedBy       the worker holding it while running, else {@code null}
 * @param deadReason     why it went to the dead-letter table, else {@code null}
 * @param payloadVersion the payload version it was enqueued with
 * @param payload        the payload as JSON text
 * @param errors         one entry per failed or lost attempt, oldest first
 * @param metadata       the job's tags ({@link JobOptions.Builder#metadata}) as a JSON object; a worker that
 *                       put the job back to wait for a newer payload version adds {@code docket.waiting} (why),
 *                       {@code docket.waitingSince} and {@code docket.waitingNext} (see {@link #waitReason()})
 * @param sequenceKey    the sequence it runs in ({@link JobOptions.Builder#sequenceKey}), or {@code null}
 * @param output         what its handler recorded ({@link JobContext#recordOutput}) as JSON text, kept when it
 *                       completes and when it dies; {@code null} when nothing was recorded (or the recording
 *                       attempt's lease was lost), the text {@code null} when the handler recorded {@code null}.
 *                       Like the payload, never logged and not in {@link #toString()}
 * @param signalWait     what the job waits for while it is {@link JobState#WAITING} for a signal
 *                       ({@link JobOptions.Builder#awaitSignal}, {@link JobContext#awaitSignal}), else {@code null}
 * @param signals        the signals sent to it while it was live, oldest first (at most the latest 50; their
 *                       payloads are treated like the job's), kept until the history retention after it finished
 * @param progress       what its handler last reported with {@link JobContext#progress}, or {@code null}
 * @param logs           the log lines its attempts kept ({@link JobContext#log}), one entry per attempt, oldest
 *                       attempt first; empty when none logged
 * @param payloadEncrypted whether its payload (or output, or a signal's payload) is stored encrypted at rest
 *                       ({@link JobKind.Builder#encrypted}); each of them is given in clear when the Docket that read
 *                       it has its key, and is {@code null} when it has not (no keys, or not that key id), never
 *                       the ciphertext
 */
public record JobInfo(long id, String queue, String kind, JobState state, int priority, int attempt,
                      int maxAttempts, Instant runAt, Instant createdAt, Instant attemptedAt, Instant finishedAt,
                      String tenant, String uniqueKey, String lockedBy, String deadReason, int payloadVersion,
                      String payload, List<JobError> errors, String metadata, String sequenceKey,
                      String output, SignalWait signalWait, List<JobSignal> signals, JobProgress progress,
                      List<JobLog> logs, boolean payloadEncrypted) {

    public JobInfo {
        errors = List.copyOf(errors);
        signals = List.copyOf(signals);
        logs = List.copyOf(logs);
    }

    /** A job stored in clear: the form before payloads could be encrypted, kept for code that builds a {@code JobInfo} itself. */
    public JobInfo(long id, String queue, String kind, JobState state, int priority, int attempt,
                   int maxAttempts, Instant runAt, Instant createdAt, Instant attemptedAt, Instant finishedAt,
                   String tenant, String uniqueKey, String lockedBy, String deadReason, int payloadVersion,
                   String payload, List<JobError> errors, String metadata, String sequenceKey,
                   String output, SignalWait signalWait, List<JobSignal> signals, JobProgress progress,
                   List<JobLog> logs) {
        this(id, queue, kind, state, priority, attempt, maxAttempts, runAt, createdAt, attemptedAt, finishedAt,
                tenant, uniqueKey, lockedBy, deadReason, payloadVersion, payload, errors, metadata, sequenceKey,
                output, signalWait, signals, progress, logs, false);
    }

    /**
     * This job with its payload, output and signals as given, and whether they are stored encrypted: how a Docket
     * shows a job it read, decrypted where it has the keys.
     */
    public JobInfo withStoredValues(String payload, String output, List<JobSignal> signals, boolean payloadEncrypted) {
        return new JobInfo(id, queue, kind, state, priority, attempt, maxAttempts, runAt, createdAt, attemptedAt,
                finishedAt, tenant, uniqueKey, lockedBy, deadReason, payloadVersion, payload, errors, metadata,
                sequenceKey, output, signalWait, signals, progress, logs, payloadEncrypted);
    }

    /**
     * A job without a signal wait, signals, progress or logs: the form before waits existed, kept for
     * code that builds a {@code JobInfo} itself (a test's fake).
     */
    public JobInfo(long id, String queue, String kind, JobState state, int priority, int attempt,
                   int maxAttempts, Instant runAt, Instant createdAt, Instant attemptedAt, Instant finishedAt,
                   String tenant, String uniqueKey, String lockedBy, String deadReason, int payloadVersion,
                   String payload, List<JobError> errors, String metadata, String sequenceKey, String output) {
        this(id, queue, kind, state, priority, attempt, maxAttempts, runAt, createdAt, attemptedAt, finishedAt,
                tenant, uniqueKey, lockedBy, deadReason, payloadVersion, payload, errors, metadata, sequenceKey,
                output, null, List.of(), null, List.of());
    }

    /**
     * Why the job is waiting rather than running, while it is: during a rolling deploy a job whose
     * payload version is newer than the handler of the worker that claimed it reads is put back (its
     * attempt not counted) until a worker that reads it takes it ({@link JobKind.Builder#newerVersionWait}).
     * Empty for a job that is not waiting for that reason now (the note stays in its metadata as history).
     */
    public Optional<String> waitReason() {
        if (state != JobState.SCHEDULED && state != JobState.READY) {
            return Optional.empty();
        }
        return Optional.ofNullable(VersionWaitNote.reason(metadata, runAt));
    }

    @Override
    public String toString() {
        return "JobInfo[id=" + id + ", queue=" + queue + ", kind=" + kind + ", state=" + state
                + ", attempt=" + attempt + "/" + maxAttempts + ", runAt=" + runAt + ", errors=" + errors.size()
                + (signalWait == null ? "" : ", awaiting signal " + signalWait.signal())
                + (payloadEncrypted ? ", encrypted" : "") + "]";
    }
}
