package dev.docket;

import java.time.Duration;
import java.util.Optional;

/**
 * What a handler knows about the attempt it is running, and what it can tell Docket about it. The methods
 * with a default implementation were added after the first ones: their defaults throw
 * {@link UnsupportedOperationException}, so that a context made by hand in a test compiles unchanged and
 * says what it lacks when a handler calls one.
 */
public interface JobContext {

    /** The job id: an idempotency key for the handler's side effects. */
    long jobId();

    /** This attempt's number, 1 for the first run; {@code (jobId(), attempt())} identifies the attempt. */
    int attempt();

    /** Attempts allowed before the job goes to the dead-letter table. */
    int maxAttempts();

    /** The job's kind. */
    String kind();

    /** The queue the job was claimed from. */
    String queue();

    /** The job's tenant, or {@code null}. */
    String tenant();

    /**
     * Ends this attempt without failing it: once the handler returns, the job goes back to wait for
     * {@code delay} (from the database's clock), with no error recorded and its attempt given back.
     * Use it for "not yet" (a rate limit, a resource still being prepared). If the handler throws
     * after snoozing, the failure wins; a later call of this or of {@link #awaitSignal} replaces it.
     *
     * @throws IllegalArgumentException if {@code delay} is negative or longer than 365 days
     */
    void snooze(Duration delay);

    /**
     * Records a small result of this job for the jobs that depend on it ({@link #output}); a later call
     * replaces it, and an attempt that fails and is retried (or whose lease expires) takes its output with
     * it: a completed job's output is what its completing attempt recorded. Kept with the job: it moves to the history when the job completes (and is dropped
     * with it by history retention; with retention 0 nothing is kept), or to the dead-letter table.
     * Treated like a payload: never logged, shown only to roles that may read payloads. Written at
     * once, fenced: an attempt that lost its lease records nothing. {@code null} records JSON null. Encrypted at
     * rest when the job's kind is ({@link JobKind.Builder#encrypted}) or its payload is.
     *
     * @throws IllegalArgumentException if the value cannot be written as JSON or is over the payload size limit
     * @throws IllegalStateException    if this attempt no longer holds the job (its lease was lost)
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default void recordOutput(Object value) {
        throw new UnsupportedOperationException("recordOutput needs a worker's JobContext");
    }

    /**
     * The output recorded by the completed job {@code jobId} (typically one this job depends on), mapped
     * to {@code type}; empty when that job recorded none, has not completed, or its history is gone.
     *
     * @throws IllegalArgumentException if the output does not map to {@code type}
     * @throws EncryptedPayloadException if the output is encrypted at rest and this worker has not its key, or it
     *                                   fails authentication
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default <T> Optional<T> output(long jobId, Class<T> type) {
        throw new UnsupportedOperationException("output needs a worker's JobContext");
    }

    /**
     * The payload of the newest signal {@code name} sent to this job ({@link Docket#signal}), mapped to
     * {@code type}; empty when none was sent before this call. It is read from the database at each call
     * (nothing is cached), so a handler may also poll it ("has {@code stop} arrived?"). A signal counts
     * whether or not a wait took it, and stays readable on every later attempt of the job. A signal sent
     * with a {@code null} payload has the payload {@code {}}.
     *
     * @throws IllegalArgumentException if {@code name} is not a signal name ({@link JobOptions#SIGNAL_NAME}), or
     *                                  the payload does not map to {@code type}
     * @throws EncryptedPayloadException if the signal is encrypted at rest and this worker has not its key, it fails
     *                                   authentication, or it is in clear (sent by SQL's {@code signal()}) for a job
     *                                   of an encrypted kind that does not {@link JobKind.Builder#acceptPlaintext}
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default <T> Optional<T> signal(String name, Class<T> type) {
        throw new UnsupportedOperationException("signal needs a worker's JobContext");
    }

    /**
     * Ends this attempt without failing it, to wait for the signal {@code name}: once the handler returns,
     * the job is {@link JobState#WAITING} (holding no worker slot and no lease) with its attempt given back,
     * until the signal arrives; then it runs again from the start of its handler, which finds the signal
     * with {@link #signal}. If a signal of that name was sent since the last wait took one (and is therefore
     * kept), the wait takes it at once and the job is ready again. No timeout. If the handler throws after
     * this call, the failure wins; a later call of this, or of {@link #snooze}, replaces it.
     *
     * <pre>{@code
     * Optional<Approval> approval = ctx.signal("approved", Approval.class);
     * if (approval.isEmpty()) {
     *     requestApproval(order);
     *     ctx.awaitSignal("approved", Duration.ofDays(3), SignalTimeout.CANCEL);
     *     return;
     * }
     * ship(order, approval.get());
     * }</pre>
     *
     * @throws IllegalArgumentException if {@code name} is not a signal name ({@link JobOptions#SIGNAL_NAME})
     * @throws IllegalStateException    if the job is in a sequence ({@link JobOptions.Builder#sequenceKey}), whose
     *                                  waiting jobs are those behind its head
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default void awaitSignal(String name) {
        throw new UnsupportedOperationException("awaitSignal needs a worker's JobContext");
    }

    /**
     * As {@link #awaitSignal(String)}, with a timeout counted from when the attempt's wait is written (by the
     * database's clock): without the signal by then, the job takes {@code onTimeout}'s path ({@link SignalTimeout}).
     *
     * @param timeout from 1 ms to 100 years
     * @throws IllegalArgumentException for a name that is not a signal name, or a timeout out of range or
     *                                  without {@code onTimeout}
     */
    default void awaitSignal(String name, Duration timeout, SignalTimeout onTimeout) {
        throw new UnsupportedOperationException("awaitSignal needs a worker's JobContext");
    }

    /**
     * Records how far this job has come: {@code fraction} from 0 to 1, with an optional message (up to 500
     * characters). The latest call wins. It is written with the job (fenced: an attempt that lost its lease
     * writes nothing) at most every 250 ms whatever the handler calls, never blocking the handler, and once
     * more when the attempt ends; it goes with the job to the history or the dead-letter table, and is shown
     * by {@link JobInfo#progress()}, the REST API, {@code docket job} and the dashboard. Never logged.
     *
     * @throws IllegalArgumentException if {@code fraction} is not from 0 to 1, or the message is too long or
     *                                  holds NUL or an unpaired surrogate
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default void progress(double fraction, String message) {
        throw new UnsupportedOperationException("progress needs a worker's JobContext");
    }

    /**
     * Keeps a log line with this job, for this attempt: shown per attempt by {@link JobInfo#logs()}, the REST
     * API, {@code docket job} and the dashboard, and kept with the job in the history or the dead-letter table.
     * Each attempt keeps its latest lines within 32 KiB (each line counting its message's UTF-8 bytes plus 64
     * for its time and framing): the oldest are dropped first, and counted. A line over 2,000 characters is
     * cut there, and says how much was cut. Lines are written like {@link #progress} (at most every 250 ms,
     * and when the attempt ends; a worker that dies loses its last quarter second of lines). Docket's own
     * logs never print them; a payload appears in them only if the handler writes it.
     *
     * @throws IllegalArgumentException if {@code message} is null or holds NUL or an unpaired surrogate
     * @throws UnsupportedOperationException where the context is not a worker's (a hand-made test context)
     */
    default void log(String message) {
        throw new UnsupportedOperationException("log needs a worker's JobContext");
    }

    /** Whether a failure of this attempt sends the job to the dead-letter table. */
    default boolean isLastAttempt() {
        return attempt() >= maxAttempts();
    }
}
