package dev.docket.internal.executor;

import dev.docket.EncryptedPayloadException;
import dev.docket.JobContext;
import dev.docket.JobKind;
import dev.docket.PermanentJobFailure;
import dev.docket.RetryPolicy;
import dev.docket.SignalTimeout;
import dev.docket.internal.completer.Completer;
import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.observe.AttemptObservation;
import dev.docket.internal.observe.JobObserver;
import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.rules.VersionWaitNote;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each claimed job's handler on a virtual thread of its own and turns what the handler did
 * into an {@link Outcome} for the completer: return = completed; {@link PermanentJobFailure} or a
 * payload that does not map = dead; any other throwable = retry after the kind's backoff, or dead
 * once the job's attempts are used up; interrupted by shutdown = released; interrupted by its kind's
 * timeout = a failed attempt with a timeout error. A payload version newer than the handler reads is
 * not run: the job is put back to wait for a worker that reads it (a rolling deploy), and fails
 * permanently only after its kind's {@code newerVersionWait}. A transactional handler's completion
 * (or snooze) is written in its own transaction ({@link TransactionalAttempts}), not by the completer.
 */
public final class JobExecutor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobExecutor.class);
    private static final int MAX_ERROR_CHARS = 4000;
    /** A job waiting for a newer worker comes back after about as long as it has waited, within these bounds. */
    private static final Duration MIN_VERSION_WAIT_STEP = Duration.ofSeconds(1);
    private static final Duration MAX_VERSION_WAIT_STEP = Duration.ofMinutes(1);

    private final Map<String, HandlerBinding<?>> handlers;
    private final Function<String, RetryPolicy> retryPolicies;
    private final PayloadCodec codec;
    private final PayloadCrypto crypto;
    private final Completer completer;
    private final Database store;
    private final InFlight inFlight;
    private final String workerId;
    private final JobObserver observer;
    private final ScheduledExecutorService timeouts;
    private final TransactionalAttempts transactions;
    private final RecordedOutputs outputs;
    private final RecentOutcomes recent = new RecentOutcomes();

    /**
     * {@code completer} may be null for an executor that only {@link #runHere runs jobs on the caller's thread};
     * {@code keepHistory}: whether transactional handlers' completed jobs go to the history (as the completer's).
     */
    public JobExecutor(Map<String, HandlerBinding<?>> handlers, Function<String, RetryPolicy> retryPolicies,
                       PayloadCodec codec, Completer completer, Database store, InFlight inFlight, String workerId,
                       JobObserver observer, boolean keepHistory) {
        this(handlers, retryPolicies, codec, new PayloadCrypto(null), completer, store, inFlight, workerId, observer,
                keepHistory);
    }

    /** As above, with the keys of payloads encrypted at rest. */
    public JobExecutor(Map<String, HandlerBinding<?>> handlers, Function<String, RetryPolicy> retryPolicies,
                       PayloadCodec codec, PayloadCrypto crypto, Completer completer, Database store, InFlight inFlight,
                       String workerId, JobObserver observer, boolean keepHistory) {
        this.handlers = Map.copyOf(handlers);
        this.retryPolicies = retryPolicies;
        this.codec = codec;
        this.crypto = crypto;
        this.completer = completer;
        this.store = store;
        this.inFlight = inFlight;
        this.workerId = workerId;
        this.observer = observer;
        this.transactions = new TransactionalAttempts(store, workerId, keepHistory);
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r ->
                Thread.ofPlatform().daemon().name("docket-timeouts-" + workerId).unstarted(r));
        // Most attempts end long before their timeout: their cancelled timers must not pile up.
        timer.setRemoveOnCancelPolicy(true);
        this.timeouts = timer;
        this.outputs = new RecordedOutputs(store.workflows(), codec, crypto, workerId);
    }

    /** Attempts this executor's started jobs finished in the last minute (not those {@link #runHere run here}). */
    public RecentOutcomes.LastMinute lastMinute() {
        return recent.lastMinute();
    }

    /**
     * Takes a claimed job into this worker's hands before its handler starts: from now on the
     * heartbeat extends its lease, and a cancel or a rescue marks it lost.
     */
    public RunningJob hold(ClaimedJob job) {
        return inFlight.add(job);
    }

    /**
     * Starts a held job's handler; {@code handlerDone} runs when the handler has returned or thrown,
     * {@code settled} once its outcome is written (or discarded), which is when the job stops
     * counting as running in the database. Its timeout counts from now.
     */
    public void start(RunningJob running, Runnable handlerDone, Runnable settled) {
        Thread.ofVirtual().name("docket-job-" + running.fence().id()).start(() -> run(running, handlerDone, settled));
    }

    /** Gives a held job whose handler never started back to the queue at once, its attempt not counted. */
    public void release(RunningJob running, Runnable settled) {
        completer.submit(new Outcome.Released(running.fence(), true), written -> {
            inFlight.remove(running);
            settled.run();
        });
    }

    /** Lets go of a held job whose handler never started and whose lease is lost: there is nothing to write. */
    public void forget(RunningJob running) {
        inFlight.remove(running);
    }

    /**
     * An attempt run on the caller's thread: its outcome (null when the job was put back, and that
     * written, to wait for a worker that reads its payload version), whether that outcome is written
     * already (a transactional handler's, in its transaction), and whether it was fenced out there.
     */
    public record Ran(Outcome outcome, boolean written, boolean fencedOut) {
    }

    /**
     * Runs the job's handler on the calling thread, with its timeout, and returns the outcome, which it
     * writes only for a transactional handler. What {@code Worker.Builder.runReadyJobs()} runs jobs
     * with in tests.
     */
    public Ran runHere(ClaimedJob job) {
        RunningJob running = inFlight.add(job);
        try {
            Outcome outcome = attempt(running);
            return new Ran(outcome, running.isCommitted(), !running.isCommitted() && running.isLost());
        } finally {
            inFlight.remove(running);
        }
    }

    /**
     * Runs one attempt. The outcome reaches the completer before the slot is freed: a shutdown that
     * sees every slot free must find every outcome already submitted. A null outcome was written here
     * already (a job put back to wait for a newer worker).
     */
    private void run(RunningJob running, Runnable handlerDone, Runnable settled) {
        try {
            ClaimedJob job = running.job();
            Outcome outcome = attempt(running);
            if (running.isCommitted()) {
                observer.written(job, outcome);
                recent.written(outcome);
                inFlight.remove(running);
                settled.run();
                return;
            }
            if (outcome == null || running.isLost()) {
                if (outcome != null) {
                    log.warn("docket: job {} attempt {} ({}): lease lost while running; outcome discarded",
                            job.id(), job.attempt(), job.kind());
                }
                inFlight.remove(running);
                settled.run();
                return;
            }
            completer.submit(outcome, written -> {
                if (written) {
                    observer.written(job, outcome);
                    recent.written(outcome);
                }
                inFlight.remove(running);
                settled.run();
            });
        } finally {
            handlerDone.run();
        }
    }

    private Outcome attempt(RunningJob running) {
        HandlerBinding<?> binding = handlers.get(running.job().kind());
        Duration timeout = binding == null ? null : binding.kind().timeout();
        running.attach(Thread.currentThread());
        ScheduledFuture<?> timer = timeout == null ? null
                : timeouts.schedule(running::timeOut, timeout.toNanos(), TimeUnit.NANOSECONDS);
        AttemptObservation observation = observer.attemptStarting(running.job());
        Context ctx = new Context(running.job(), outputs, this, observation, binding == null ? null : binding.kind());
        Outcome outcome = null;
        try {
            outcome = attempt(running, binding, timeout, observation, ctx);
            return outcome;
        } finally {
            observation.ended(outcome);
            if (timer != null) {
                timer.cancel(false);
            }
            running.detach();
            Thread.interrupted();
            // After the interrupt is cleared (an interrupted virtual thread's socket would close), before the
            // outcome is submitted (a completed job is no longer in the jobs table to write to).
            ctx.finishNotes();
        }
    }

    private Outcome attempt(RunningJob running, HandlerBinding<?> binding, Duration timeout,
                            AttemptObservation observation, Context ctx) {
        ClaimedJob job = running.job();
        if (binding == null) {
            return failed(job, "no handler for kind '" + job.kind() + "' on worker " + workerId,
                    retryPolicies.apply(job.kind()));
        }
        if (job.payloadVersion() > binding.kind().payloadVersion()) {
            return awaitNewerWorker(job, binding.kind());
        }
        String json;
        try {
            json = plaintext(job, binding.kind());
        } catch (EncryptedPayloadException e) {
            observation.failed(e);
            // A missing key may be configured (or another worker may have it): retried. A value that fails
            // authentication, or sits in clear where it must not, will not change by itself: dead, kept for replay.
            return e.keyMissing() ? failed(job, e.getMessage(), binding.retryPolicy())
                    : new Outcome.Dead(job.fence(), job.sequenceKey(), e.getMessage(), e.getMessage());
        }
        Object payload;
        try {
            payload = binding.decode(codec, json, job.payloadVersion());
        } catch (IllegalArgumentException e) {
            observation.failed(e);
            // A payload that does not fit its type will not fit on the next attempt either.
            return new Outcome.Dead(job.fence(), job.sequenceKey(), e.getMessage(), e.getMessage());
        }
        try {
            if (binding.isTransactional()) {
                return transactions.run(running, tx -> binding.invoke(payload, ctx, tx), () -> {
                    // The outcome commits with the handler's work: the notes must be in the row before it moves.
                    ctx.finishNotes();
                    return returned(ctx);
                });
            }
            binding.invoke(payload, ctx);
            return returned(ctx);
        } catch (PermanentJobFailure e) {
            observation.failed(e);
            return new Outcome.Dead(job.fence(), job.sequenceKey(), describe(e), "permanent failure: " + e.getMessage());
        } catch (Throwable e) {
            observation.failed(e);
            if (running.isReleasing()) {
                return new Outcome.Released(job.fence(), true);
            }
            if (running.isTimedOut()) {
                return failed(job, "timed out after " + timeout + " (the handler was interrupted)\n" + describe(e),
                        binding.retryPolicy());
            }
            return failed(job, describe(e), binding.retryPolicy());
        }
    }

    /** The outcome of a handler that returned: completed, or snoozed or waiting for a signal if it asked to be. */
    private static Outcome returned(Context ctx) {
        if (ctx.awaitSignal != null) {
            return new Outcome.AwaitSignal(ctx.job.fence(), ctx.awaitSignal, ctx.awaitTimeoutMillis, ctx.awaitOnTimeout);
        }
        if (ctx.snoozeMillis >= 0) {
            return new Outcome.Snoozed(ctx.job.fence(), ctx.snoozeMillis);
        }
        return new Outcome.Completed(ctx.job.fence(), ctx.job.sequenceKey());
    }

    /**
     * A job whose payload version is newer than the handler reads, during a rolling deploy: it is put
     * back to wait for a worker that reads it, its attempt given back, coming back after about as long
     * as it has waited so far (1 s to 1 min, jittered), with the reason noted on the job; returns null
     * once that is written. When it has waited its kind's newerVersionWait (by the database clock: the
     * time it was due back minus when its wait began), it fails permanently instead.
     */
    private Outcome awaitNewerWorker(ClaimedJob job, JobKind<?> kind) {
        String problem = "payload version " + job.payloadVersion() + " is newer than this worker's handler reads ("
                + kind.payloadVersion() + ")";
        Instant since = VersionWaitNote.since(job.metadata(), job.runAt());
        Duration waited = since == null ? Duration.ZERO : Duration.between(since, job.runAt());
        Duration left = kind.newerVersionWait().minus(waited);
        if (left.isNegative() || left.isZero()) {
            String reason = problem + ", and no worker that reads it took the job within " + kind.newerVersionWait()
                    + " (newerVersionWait); deploy the handler that knows it, then replay the job";
            return new Outcome.Dead(job.fence(), job.sequenceKey(), reason, reason);
        }
        Duration step = waited.compareTo(MIN_VERSION_WAIT_STEP) < 0 ? MIN_VERSION_WAIT_STEP
                : waited.compareTo(MAX_VERSION_WAIT_STEP) > 0 ? MAX_VERSION_WAIT_STEP : waited;
        long delay = Math.min(left.toMillis(),
                Math.round(step.toMillis() * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble())));
        String reason = problem + "; waiting up to " + kind.newerVersionWait() + " for a worker that reads it";
        try {
            store.outcomes().awaitNewerVersion(job.fence(), workerId, Math.max(1, delay), reason);
            return null;
        } catch (SQLException e) {
            // Put back without the note: the wait then starts again at the next claim, which only lengthens it.
            log.warn("docket: job {} ({}): noting its wait for a newer worker failed: {}", job.id(), job.kind(),
                    e.getMessage());
            return new Outcome.Snoozed(job.fence(), Math.max(1, delay));
        }
    }

    /**
     * The job's payload in clear: decrypted when it is stored encrypted (whatever its kind says now, so that a kind
     * that stops encrypting still reads its older jobs), refused in clear for an encrypted kind unless the kind
     * accepts it. For a payload in clear of a kind that is not encrypted, one {@code startsWith}.
     */
    private String plaintext(ClaimedJob job, JobKind<?> kind) {
        String json = job.payload();
        if (PayloadCrypto.isSealed(json)) {
            return crypto.open(json, PayloadCrypto.payloadContext(job.kind()), "the payload of job " + job.id());
        }
        if (kind.encrypted() && !kind.acceptsPlaintext()) {
            throw new EncryptedPayloadException("the payload of job " + job.id() + " is stored in clear, and its kind '"
                    + job.kind() + "' is encrypted: it was enqueued by the SQL function enqueue() or by a Docket that "
                    + "does not declare the kind encrypted; declare the kind with acceptPlaintext() to run such jobs", false);
        }
        return json;
    }

    /** A signal's payload as {@code type}; the codec's message names the signal instead of "payload". */
    private <T> T readSignal(String json, String name, Class<T> type, long jobId, boolean encrypted,
                             boolean acceptPlaintext) {
        if (PayloadCrypto.isSealed(json)) {
            json = crypto.open(json, PayloadCrypto.signalContext(jobId, name), "the payload of signal " + name
                    + " to job " + jobId);
        } else if (encrypted && !acceptPlaintext) {
            throw new EncryptedPayloadException("the payload of signal " + name + " to job " + jobId + " is stored in "
                    + "clear, and the job is encrypted: it was sent by the SQL function signal(); declare the kind "
                    + "with acceptPlaintext() to read such signals", false);
        }
        try {
            return codec.fromJson(json, type);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replaceFirst("^payload", "the payload of signal " + name));
        }
    }

    /** The lease a claim of {@code kind} takes, or null for the worker's. */
    public Duration leaseOf(String kind) {
        HandlerBinding<?> binding = handlers.get(kind);
        return binding == null ? null : binding.kind().lease();
    }

    /** The kinds this worker has handlers for. */
    public Set<String> kinds() {
        return handlers.keySet();
    }

    /** Kinds with a lease of their own, and those leases. */
    public Map<String, Duration> kindLeases() {
        Map<String, Duration> leases = new java.util.HashMap<>();
        handlers.forEach((kind, binding) -> {
            if (binding.kind().lease() != null) {
                leases.put(kind, binding.kind().lease());
            }
        });
        return leases;
    }

    @Override
    public void close() {
        timeouts.shutdownNow();
    }

    private Outcome failed(ClaimedJob job, String error, RetryPolicy policy) {
        if (job.attempt() >= job.maxAttempts()) {
            return new Outcome.Dead(job.fence(), job.sequenceKey(), error, "attempts exhausted (" + job.maxAttempts() + ")");
        }
        long delay = policy.backoff(job.attempt(), ThreadLocalRandom.current().nextDouble()).toMillis();
        return new Outcome.Retry(job.fence(), delay, error);
    }

    /**
     * What a handler sees of its attempt; remembers a snooze or a wait for a signal (the later call wins), and
     * holds the attempt's progress and log lines once the handler gives one.
     */
    private static final class Context implements JobContext {
        private final ClaimedJob job;
        private final RecordedOutputs outputs;
        private final JobExecutor executor;
        private final AttemptObservation observation;
        private volatile long snoozeMillis = -1;
        private volatile String awaitSignal;
        private volatile Long awaitTimeoutMillis;
        private volatile String awaitOnTimeout;
        private volatile JobNotes notes;
        /** Whether its output and signals are encrypted: its kind is, or its payload is stored encrypted. */
        private final boolean encrypted;
        private final boolean acceptPlaintext;

        Context(ClaimedJob job, RecordedOutputs outputs, JobExecutor executor, AttemptObservation observation,
                JobKind<?> kind) {
            this.job = job;
            this.encrypted = kind != null && kind.encrypted() || PayloadCrypto.mayBeSealed(job.payload());
            this.acceptPlaintext = kind != null && kind.acceptsPlaintext();
            this.outputs = outputs;
            this.executor = executor;
            this.observation = observation;
        }

        @Override
        public long jobId() {
            return job.id();
        }

        @Override
        public int attempt() {
            return job.attempt();
        }

        @Override
        public int maxAttempts() {
            return job.maxAttempts();
        }

        @Override
        public String kind() {
            return job.kind();
        }

        @Override
        public String queue() {
            return job.queue();
        }

        @Override
        public String tenant() {
            return job.tenant();
        }

        @Override
        public void snooze(Duration delay) {
            if (delay == null || delay.isNegative() || delay.compareTo(Duration.ofDays(365)) > 0) {
                throw new IllegalArgumentException("snooze delay must be from 0 to 365 days, was " + delay);
            }
            synchronized (this) {
                snoozeMillis = delay.toMillis();
                awaitSignal = null;
            }
        }

        @Override
        public <T> Optional<T> signal(String name, Class<T> type) {
            JobOptionRules.checkSignalName(name);
            Objects.requireNonNull(type, "type");
            return Database.call("reading signal " + name + " of job " + job.id(),
                    () -> executor.store.signals().latest(job.id(), name))
                    .map(json -> executor.readSignal(json, name, type, job.id(), encrypted, acceptPlaintext));
        }

        @Override
        public void awaitSignal(String name) {
            await(JobOptionRules.checkSignalName(name), null, null);
        }

        @Override
        public void awaitSignal(String name, Duration timeout, SignalTimeout onTimeout) {
            String checked = JobOptionRules.checkSignalName(name);
            JobOptionRules.checkSignalTimeout(timeout, onTimeout);
            await(checked, timeout.toMillis(), onTimeout.name().toLowerCase(Locale.ROOT));
        }

        private void await(String name, Long timeoutMillis, String onTimeout) {
            if (job.sequenceKey() != null) {
                throw new IllegalStateException("job " + job.id() + " runs in a sequence, whose waiting jobs are those "
                        + "behind its head: it cannot wait for a signal");
            }
            synchronized (this) {
                awaitSignal = name;
                awaitTimeoutMillis = timeoutMillis;
                awaitOnTimeout = onTimeout;
                snoozeMillis = -1;
            }
        }

        @Override
        public void progress(double fraction, String message) {
            notes().progress(fraction, message);
            observation.progress(fraction);
        }

        @Override
        public void log(String message) {
            notes().log(message);
        }

        private JobNotes notes() {
            JobNotes n = notes;
            if (n == null) {
                synchronized (this) {
                    if (notes == null) {
                        notes = new JobNotes(job.fence(), executor.workerId, executor.store.outcomes(),
                                executor.codec.mapper(), executor.timeouts);
                    }
                    n = notes;
                }
            }
            return n;
        }

        /** Writes what the attempt's progress and log lines still hold; nothing for a handler that gave none. */
        void finishNotes() {
            JobNotes n = notes;
            if (n != null) {
                n.finish();
            }
        }

        @Override
        public void recordOutput(Object value) {
            outputs.record(job.fence(), value, encrypted);
        }

        @Override
        public <T> Optional<T> output(long jobId, Class<T> type) {
            return outputs.read(jobId, type);
        }
    }

    /** The throwable with its stack, cut to a size that keeps the errors column small. */
    static String describe(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        String text = out.toString().replace("\0", "");
        return text.length() <= MAX_ERROR_CHARS ? text : text.substring(0, MAX_ERROR_CHARS) + "\n\t...";
    }
}
