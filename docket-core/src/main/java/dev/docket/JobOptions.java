package dev.docket;

import static dev.docket.OptionChecks.atLeast;
import static dev.docket.OptionChecks.between;
import static dev.docket.internal.rules.JobOptionRules.checkDelay;
import static dev.docket.internal.rules.JobOptionRules.checkDelayAfterDependencies;
import static dev.docket.internal.rules.JobOptionRules.checkDependsOn;
import static dev.docket.internal.rules.JobOptionRules.checkKey;
import static dev.docket.internal.rules.JobOptionRules.checkMetadata;
import static dev.docket.internal.rules.JobOptionRules.checkQueue;
import static dev.docket.internal.rules.JobOptionRules.checkRunAt;
import static dev.docket.internal.rules.JobOptionRules.checkSignalName;
import static dev.docket.internal.rules.JobOptionRules.checkSignalTimeout;
import static dev.docket.internal.rules.JobOptionRules.checkUniqueFor;

import dev.docket.internal.rules.JobOptionRules;
import java.nio.LongBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * How one job is enqueued. Immutable; build with {@link #builder()}, or use {@link #defaults()}.
 *
 * <p>Defaults: queue {@code "default"}, priority {@code 0}, due now, max attempts from the kind's
 * {@link RetryPolicy} (20 unless configured), no unique key, no tenant, no sequence key, no dependencies, no
 * wait for a signal.
 *
 * <p><b>Text is stored exactly as given, or refused.</b> Every text value (unique key, tenant,
 * metadata keys and values) must be valid Unicode without NUL: a lone UTF-16 surrogate such as
 * {@code "a\ud800b"} is an {@link IllegalArgumentException}, never silently stored as {@code "a?b"}
 * (where it would collide with the real key {@code "a?b"}). Kinds must further be printable: no
 * control characters, no invisible formatting characters (zero-width, bidirectional overrides), no
 * separators other than the plain space, no unassigned or surrogate code points. Queue names are
 * stricter still ({@link #QUEUE_NAME}). The same rules hold in the REST API (400), the CLI (exit 2)
 * and the SQL function {@code enqueue}.
 */
public final class JobOptions {

    /** Queue names: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}. */
    public static final Pattern QUEUE_NAME = JobOptionRules.QUEUE_NAME;
    /** Longest unique key and tenant, in characters. */
    public static final int MAX_KEY_LENGTH = JobOptionRules.MAX_KEY_LENGTH;
    /** The earliest {@link Builder#runAt} accepted: 1970-01-01T00:00:00Z (any past instant means "now"). */
    public static final Instant EARLIEST_RUN_AT = JobOptionRules.EARLIEST_RUN_AT;
    /** The latest {@link Builder#runAt} accepted: 9999-12-31T23:59:59Z. */
    public static final Instant LATEST_RUN_AT = JobOptionRules.LATEST_RUN_AT;
    /** The most jobs one job may depend on ({@link Builder#dependsOn}). */
    public static final int MAX_DEPENDENCIES = JobOptionRules.MAX_DEPENDENCIES;
    /** Signal names ({@link Builder#awaitSignal}, {@link Docket#signal}): 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}. */
    public static final Pattern SIGNAL_NAME = JobOptionRules.SIGNAL_NAME;

    /** The maximum wait of {@link Builder#debounce(String, Duration)}, in windows: 10. */
    public static final int DEFAULT_DEBOUNCE_MAX_WAIT_WINDOWS = 10;

    private static final JobOptions DEFAULTS = builder().build();

    /** A private copy of the builder that made these options, never changed after. */
    private final Builder values;

    private JobOptions(Builder b) {
        this.values = new Builder(b);
    }

    /** Queue {@code "default"}, priority 0, due now, the kind's max attempts, no unique key, no tenant. */
    public static JobOptions defaults() {
        return DEFAULTS;
    }

    /** A builder with every option at its default. */
    public static Builder builder() {
        return new Builder();
    }

    /** A copy of these options to change. */
    public Builder toBuilder() {
        return new Builder(values);
    }

    /** The queue; {@code "default"} unless set (here or by the kind's defaults). */
    public String queue() {
        return values.queue == null ? "default" : values.queue;
    }

    /** The priority, smaller first within a queue; 0 unless set (here or by the kind's defaults). */
    public int priority() {
        return values.priority == null ? 0 : values.priority;
    }

    /** The queue as set, or {@code null} (then {@code "default"}). */
    String queueOrNull() {
        return values.queue;
    }

    /** The priority as set, or {@code null} (then 0). */
    Integer priorityOrNull() {
        return values.priority;
    }

    /**
     * These options with a kind's defaults for what they leave unset: every field {@link KindDefaults}
     * holds, so a kind's defaults apply alike whether a job passes options or not.
     */
    JobOptions withDefaults(KindDefaults kindDefaults) {
        if (kindDefaults == null || kindDefaults == KindDefaults.none()) {
            return this;
        }
        if (this == DEFAULTS) {
            return kindDefaults.asOptions();
        }
        Builder b = toBuilder();
        Builder d = kindDefaults.asOptions().values;
        b.queue = orElse(b.queue, d.queue);
        b.priority = orElse(b.priority, d.priority);
        b.maxAttempts = orElse(b.maxAttempts, d.maxAttempts);
        b.tenant = orElse(b.tenant, d.tenant);
        b.haltSequenceOnDeath = orElse(b.haltSequenceOnDeath, d.haltSequenceOnDeath);
        return b.build();
    }

    private static <T> T orElse(T value, T fallback) {
        return value != null ? value : fallback;
    }

    /** The absolute due time, or {@code null} (then {@link #delay()} or now). */
    public Instant runAt() {
        return values.runAt;
    }

    /** The delay after the database's {@code now()} at enqueue, or {@code null}. */
    public Duration delay() {
        return values.delay;
    }

    /** Max attempts, or {@code null} to use the kind's retry policy. */
    public Integer maxAttempts() {
        return values.maxAttempts;
    }

    public String uniqueKey() {
        return values.uniqueKey;
    }

    public String tenant() {
        return values.tenant;
    }

    /** How long the unique key is held from enqueue, even after the job finished; {@code null}: while the job is live. */
    public Duration uniqueFor() {
        return values.uniqueFor;
    }

    /** Tags stored with the job (trace ids, origin...), shown in the API and dashboard; never payload data. */
    public Map<String, String> metadata() {
        return Collections.unmodifiableMap(values.metadata);
    }

    /** The sequence this job runs in ({@link Builder#sequenceKey}), or {@code null} for none. */
    public String sequenceKey() {
        return values.sequenceKey;
    }

    /**
     * Whether this job's death halts its sequence ({@link Builder#haltSequenceOnDeath}), or {@code null}
     * when unset: then the kind's defaults decide, and without them the sequence continues.
     */
    public Boolean haltSequenceOnDeath() {
        return values.haltSequenceOnDeath;
    }

    /**
     * The payload's version, or {@code null} for the kind's: set only by {@link JobKind} (which stamps its
     * own version on the options of its jobs, {@link NewJob#of(JobKind, Object, JobOptions)}); a kind's
     * version is declared on the kind, not per job.
     */
    Integer payloadVersion() {
        return values.payloadVersion;
    }

    /** The ids of the jobs this job waits for, in the order given (a copy); empty for none (the default). */
    public long[] dependsOn() {
        return values.dependsOn.clone();
    }

    /** {@link #dependsOn()} without the copy, for the row made at enqueue (mostly the shared empty array). */
    long[] dependsOnIds() {
        return values.dependsOn;
    }

    /** When the job runs given its dependencies, and what a failed one does to it; default {@link DependencyMode#ALL_COMPLETED}. */
    public DependencyMode dependencyMode() {
        return values.dependencyMode;
    }

    /** The signal this job waits for before it can run ({@link Builder#awaitSignal}), or {@code null} for none (the default). */
    public String awaitSignal() {
        return values.awaitSignal;
    }

    /** How long the job waits for {@link #awaitSignal()} before {@link #onSignalTimeout()}, or {@code null} for no limit. */
    public Duration signalTimeout() {
        return values.signalTimeout;
    }

    /** What happens when {@link #signalTimeout()} passes without the signal, or {@code null} without a timeout. */
    public SignalTimeout onSignalTimeout() {
        return values.onSignalTimeout;
    }

    /** The debounce key ({@link Builder#debounce}), or {@code null} for a job that is not debounced (the default). */
    public String debounceKey() {
        return values.debounceKey;
    }

    /** How long after the last enqueue of its {@link #debounceKey()} the job runs, or {@code null} without debounce. */
    public Duration debounceWindow() {
        return values.debounceWindow;
    }

    /**
     * The longest a debounced job waits after its first enqueue, however often it is enqueued again, or
     * {@code null} without debounce.
     */
    public Duration debounceMaxWait() {
        return values.debounceMaxWait;
    }

    /** How long after its dependencies complete the job runs ({@link Builder#delayAfterDependencies}), or {@code null}. */
    public Duration delayAfterDependencies() {
        return values.delayAfterDependencies;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JobOptions other && fields().equals(other.fields());
    }

    @Override
    public int hashCode() {
        return fields().hashCode();
    }

    /** Every value, for equals and hashCode: the dependency ids wrapped so that they compare by content. */
    private List<Object> fields() {
        Builder v = values;
        return Arrays.asList(v.queue, v.priority, v.runAt, v.delay, v.maxAttempts, v.uniqueKey,
                v.tenant, v.payloadVersion, v.uniqueFor, v.metadata, v.sequenceKey, v.haltSequenceOnDeath,
                LongBuffer.wrap(v.dependsOn), v.dependencyMode, v.awaitSignal, v.signalTimeout, v.onSignalTimeout,
                v.delayAfterDependencies, v.debounceKey, v.debounceWindow, v.debounceMaxWait);
    }

    @Override
    public String toString() {
        Builder v = values;
        return "JobOptions[queue=" + queue() + ", priority=" + priority() + ", runAt=" + v.runAt + ", delay=" + v.delay
                + ", maxAttempts=" + v.maxAttempts + ", uniqueKey=" + v.uniqueKey + ", tenant=" + v.tenant
                + ", payloadVersion=" + v.payloadVersion + ", uniqueFor=" + v.uniqueFor + ", metadata=" + v.metadata.keySet()
                + ", sequenceKey=" + v.sequenceKey + ", haltSequenceOnDeath=" + v.haltSequenceOnDeath
                + (v.dependsOn.length == 0 ? "" : ", dependsOn=" + v.dependsOn.length + " jobs (" + v.dependencyMode + ")")
                + (v.delayAfterDependencies == null ? "" : ", delayAfterDependencies=" + v.delayAfterDependencies)
                + (v.awaitSignal == null ? "" : ", awaitSignal=" + v.awaitSignal
                        + (v.signalTimeout == null ? "" : " (" + v.signalTimeout + ", then " + v.onSignalTimeout + ")"))
                + (v.debounceKey == null ? "" : ", debounce=" + v.debounceWindow + " (at most " + v.debounceMaxWait + ")")
                + "]";
    }

    /** Builds {@link JobOptions}; each setter checks its value and says what was wrong. */
    public static final class Builder {
        /** Null until set, as every value the kind's defaults may fill in ({@link #withDefaults}). */
        private String queue;
        private Integer priority;
        private Instant runAt;
        private Duration delay;
        private Integer maxAttempts;
        private String uniqueKey;
        private String tenant;
        private Integer payloadVersion;
        private Duration uniqueFor;
        private final Map<String, String> metadata = new TreeMap<>();
        private String sequenceKey;
        private Boolean haltSequenceOnDeath;
        private long[] dependsOn = new long[0];
        private DependencyMode dependencyMode = DependencyMode.ALL_COMPLETED;
        private String awaitSignal;
        private Duration signalTimeout;
        private SignalTimeout onSignalTimeout;
        private Duration delayAfterDependencies;
        private String debounceKey;
        private Duration debounceWindow;
        private Duration debounceMaxWait;

        private Builder() {
        }

        /** A copy of {@code from}; the dependency ids are shared, as no builder changes its array in place. */
        private Builder(Builder from) {
            queue = from.queue;
            priority = from.priority;
            runAt = from.runAt;
            delay = from.delay;
            maxAttempts = from.maxAttempts;
            uniqueKey = from.uniqueKey;
            tenant = from.tenant;
            payloadVersion = from.payloadVersion;
            uniqueFor = from.uniqueFor;
            metadata.putAll(from.metadata);
            sequenceKey = from.sequenceKey;
            haltSequenceOnDeath = from.haltSequenceOnDeath;
            dependsOn = from.dependsOn;
            dependencyMode = from.dependencyMode;
            awaitSignal = from.awaitSignal;
            signalTimeout = from.signalTimeout;
            onSignalTimeout = from.onSignalTimeout;
            delayAfterDependencies = from.delayAfterDependencies;
            debounceKey = from.debounceKey;
            debounceWindow = from.debounceWindow;
            debounceMaxWait = from.debounceMaxWait;
        }

        /** The queue, default {@code "default"}: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}. */
        public Builder queue(String queue) {
            this.queue = checkQueue(queue);
            return this;
        }

        /** Smaller runs first within a queue; default 0; from -32768 to 32767. */
        public Builder priority(int priority) {
            this.priority = between("priority", priority, Short.MIN_VALUE, Short.MAX_VALUE);
            return this;
        }

        /**
         * Run no earlier than this instant (a past instant means now). Clears {@link #delay}. From
         * {@link #EARLIEST_RUN_AT} (1970-01-01T00:00:00Z) to {@link #LATEST_RUN_AT}
         * (9999-12-31T23:59:59Z), both included; an instant outside is refused rather than moved into
         * range.
         */
        public Builder runAt(Instant runAt) {
            this.runAt = checkRunAt(runAt);
            this.delay = null;
            return this;
        }

        /** Run this long after the database's {@code now()} at enqueue; not negative. Clears {@link #runAt}. */
        public Builder delay(Duration delay) {
            this.delay = checkDelay(delay);
            this.runAt = null;
            return this;
        }

        /** Attempts before the dead-letter table, at least 1; default: the kind's retry policy. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = atLeast("maxAttempts", maxAttempts, 1);
            return this;
        }

        /**
         * At most one live job (scheduled, ready or running) has this key: enqueueing another returns
         * the existing job's id. 1 to 512 characters of valid Unicode without NUL; {@code null} (the
         * default) for none.
         */
        public Builder uniqueKey(String uniqueKey) {
            this.uniqueKey = checkKey("uniqueKey", uniqueKey);
            return this;
        }

        /**
         * Holds the unique key for this long from enqueue, even after the job completed (or died):
         * "at most one such job per period", e.g. one digest per user per day. Needs a
         * {@link #uniqueKey}; from 1 ms to 366 days. Default: held only while the job is live.
         */
        public Builder uniqueFor(Duration period) {
            this.uniqueFor = checkUniqueFor(period);
            return this;
        }

        /**
         * Adds a tag stored with the job, such as a trace id or the request that caused it: up to 32
         * tags, keys of 1 to 64 characters, values of up to 512, both valid Unicode without NUL. Shown
         * to every role that may read jobs, so never put payload data here.
         */
        public Builder metadata(String key, String value) {
            checkMetadata(metadata, key, value);
            metadata.put(key, value);
            return this;
        }

        /**
         * The fairness key this job is accounted to: 1 to 512 characters of valid Unicode without NUL;
         * {@code null} (the default) for none.
         */
        public Builder tenant(String tenant) {
            this.tenant = checkKey("tenant", tenant);
            return this;
        }

        /**
         * Runs this job in the sequence named {@code sequenceKey}: jobs with the same key run one at a
         * time, in enqueue order, across all workers and processes; jobs of different keys run in
         * parallel. Enqueue order is id order: jobs enqueued one after another (each enqueue returned
         * before the next began) and the jobs of one {@code enqueueAll} run in that order; the jobs of
         * transactions that enqueue the same key at the same time interleave, each transaction's own
         * jobs keeping their order. Only one live job of a key (its head: the oldest, but for that
         * interleaving) can be claimed; the jobs
         * behind it are {@link JobState#WAITING} and cost the claim nothing. The head holds its sequence
         * while it retries; when it completes, is cancelled or dies, the next job becomes the head in the
         * same transaction (or, with {@link #haltSequenceOnDeath}, a death halts the sequence).
         *
         * <p>Executions of one key never overlap, with the exceptions every at-least-once queue has: a
         * head whose worker lost its lease runs again (possibly while the old attempt still runs), and
         * a running head that is cancelled frees its sequence at once while its handler is interrupted
         * at its worker's next heartbeat. Enqueue a keyed job in a READ COMMITTED transaction (the
         * default); REPEATABLE READ and SERIALIZABLE are refused by the database, since their snapshot
         * could miss a head committed meanwhile. An open transaction that enqueued a keyed job holds
         * its key until it ends: the completion of that key's head waits for it.
         *
         * <p>1 to 512 characters of valid Unicode without NUL; {@code null} (the default) for none.
         */
        public Builder sequenceKey(String sequenceKey) {
            this.sequenceKey = checkKey("sequenceKey", sequenceKey);
            return this;
        }

        /**
         * What this job's death (attempts used up, or a permanent failure) does to its sequence:
         * {@code false} (the default, unless the kind's defaults say otherwise) lets the next job run;
         * {@code true} halts the sequence, with its later jobs {@link JobState#WAITING}, until the dead
         * job is retried (replayed from the dead-letter table, it becomes the head again, before the
         * jobs that waited) or discarded (deleted from the dead-letter table, or pruned by its
         * retention: then the next job runs). Only meaningful with a {@link #sequenceKey}; set it in a
         * kind's defaults to make it that kind's policy.
         */
        public Builder haltSequenceOnDeath(boolean halt) {
            this.haltSequenceOnDeath = halt;
            return this;
        }

        /** The version of the payload's shape, at least 1 (see {@link JobOptions#payloadVersion()}). */
        Builder payloadVersion(int version) {
            this.payloadVersion = atLeast("payloadVersion", version, 1);
            return this;
        }

        /**
         * The jobs this job waits for: it is {@link JobState#WAITING} (not claimable) until they settle it as
         * its {@link #dependencyMode} says, and then becomes ready (or scheduled, if its {@link #runAt} is
         * still ahead) in the transaction that finishes the last of them. A dependency that has already
         * completed counts as done at enqueue (so a job whose dependencies all completed is ready at once).
         * Replaces earlier ids; none (the default) for an ordinary job. Each id must be positive, at most
         * {@link #MAX_DEPENDENCIES}, no id twice. An id that is in none of the jobs, history and dead-letter
         * tables is refused at enqueue with an {@link IllegalArgumentException}, nothing inserted (with
         * history retention 0, or once its history partition is dropped, a completed job is such an id).
         * A job enqueued with a unique key that a live job holds is not inserted, and gets no dependencies.
         * A job with dependencies cannot also have a {@link #sequenceKey} ({@link #build()} refuses it).
         */
        public Builder dependsOn(long... jobIds) {
            this.dependsOn = checkDependsOn(jobIds);
            return this;
        }

        /** When the job runs given its {@link #dependsOn} jobs; default {@link DependencyMode#ALL_COMPLETED}. */
        public Builder dependencyMode(DependencyMode mode) {
            this.dependencyMode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * The job waits for the signal {@code name} before it can run, without a timeout: it is enqueued
         * {@link JobState#WAITING} (not claimable, holding no worker slot or lease) and becomes ready in the
         * transaction that sends the signal ({@link Docket#signal(java.sql.Connection, long, String, Object)}),
         * or scheduled if its {@link #runAt} is still ahead, or stays waiting while it also waits for its
         * {@link #dependsOn} jobs. Its handler reads the signal's payload with {@link JobContext#signal}. A
         * workflow step with it runs only when its steps before it have completed and the signal arrived.
         * Cancel a wait that is no longer wanted with {@link Docket#cancel}. Replaces an earlier wait; none by
         * default. A job in a sequence cannot wait for a signal ({@link #build()} refuses it).
         *
         * @param name 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -} ({@link JobOptions#SIGNAL_NAME})
         */
        public Builder awaitSignal(String name) {
            this.awaitSignal = checkSignalName(name);
            this.signalTimeout = null;
            this.onSignalTimeout = null;
            return this;
        }

        /**
         * As {@link #awaitSignal(String)}, with a timeout: if the signal has not arrived {@code timeout} after
         * the enqueue (by the database's clock), the maintenance leader takes the job down {@code onTimeout}'s
         * path (run anyway, fail, or cancel), at most a maintenance interval late and exactly once across
         * leader changes, like a scheduled job's promotion. A signal and the timeout that race each other are
         * decided by the job's row lock: exactly one of them ends the wait (the other signal is then kept).
         *
         * @param timeout   from 1 ms to 100 years
         * @param onTimeout what happens at the timeout
         */
        public Builder awaitSignal(String name, Duration timeout, SignalTimeout onTimeout) {
            String checked = checkSignalName(name);
            this.signalTimeout = checkSignalTimeout(timeout, onTimeout);
            this.awaitSignal = checked;
            this.onSignalTimeout = onTimeout;
            return this;
        }

        /**
         * A timer: the job runs {@code delay} after its last {@link #dependsOn} job completed, without a worker
         * waiting meanwhile (it is {@link JobState#WAITING}, then {@link JobState#SCHEDULED} until then, and made
         * ready by the maintenance leader like any scheduled job, across leader changes). If its dependencies have
         * all completed at enqueue, the delay counts from the enqueue. A later {@link #runAt} still holds. Needs
         * {@link #dependsOn} ({@link #build()} refuses it otherwise: for a job without dependencies use
         * {@link #delay}); none by default.
         *
         * @param delay from 1 ms to 100 years
         */
        public Builder delayAfterDependencies(Duration delay) {
            this.delayAfterDependencies = checkDelayAfterDependencies(delay);
            return this;
        }

        /**
         * Debounces the job: enqueues of the same kind with the same {@code key} collapse into one job while it
         * has not started. The job runs once {@code window} has passed since the last of them (each enqueue
         * moves its run time to {@code window} from then, by the database's clock), with the last enqueue's
         * payload (and payload version; its metadata tags are merged over the job's); its queue, priority,
         * max attempts and tenant are the first enqueue's. A steady stream of enqueues cannot hold it back
         * for ever: it runs at the latest {@link JobOptions#DEFAULT_DEBOUNCE_MAX_WAIT_WINDOWS} windows after the first
         * enqueue (see {@link #debounce(String, Duration, Duration)} to choose). The enqueue that collapses
         * into an existing job returns that job's id with {@link Enqueued#inserted()} {@code false}.
         *
         * <p>Safe across transactions and processes: the collapse is one {@code INSERT ... ON CONFLICT} on a
         * unique index over (kind, key) of jobs not yet started, so concurrent enqueues make one job, and each
         * waits for the transaction that holds the job before it updates it (an enqueue in an open transaction
         * holds the key until that transaction ends). Once the job is claimed it no longer collapses anything:
         * an enqueue during or after its run makes the next job. A debounced job cannot also have a
         * {@link #uniqueKey}, a {@link #sequenceKey}, {@link #dependsOn} jobs, a signal to wait for, or a
         * {@link #runAt}/{@link #delay} (the window is its run time): {@link #build()} refuses them. The SQL
         * function {@code enqueue()} does not debounce.
         *
         * @param key    1 to 512 characters of valid Unicode without NUL
         * @param window from 1 ms to 366 days
         */
        public Builder debounce(String key, Duration window) {
            Duration checked = JobOptionRules.checkDebounceWindow(window);
            return debounce(key, checked,
                    JobOptionRules.defaultDebounceMaxWait(checked, DEFAULT_DEBOUNCE_MAX_WAIT_WINDOWS));
        }

        /**
         * As {@link #debounce(String, Duration)}, with the longest the job may wait after its first enqueue:
         * however many enqueues follow, it runs no later than {@code maxWait} after the first.
         *
         * @param maxWait from {@code window} to 3660 days
         */
        public Builder debounce(String key, Duration window, Duration maxWait) {
            String checkedKey = JobOptionRules.checkDebounceKey(key);
            Duration checkedWindow = JobOptionRules.checkDebounceWindow(window);
            this.debounceMaxWait = JobOptionRules.checkDebounceMaxWait(maxWait, checkedWindow);
            this.debounceKey = checkedKey;
            this.debounceWindow = checkedWindow;
            return this;
        }

        public JobOptions build() {
            if (uniqueFor != null && uniqueKey == null) {
                throw new IllegalArgumentException("uniqueFor needs a uniqueKey");
            }
            if (sequenceKey != null && dependsOn.length > 0) {
                // Both hold the job 'waiting', and a sequence's advance would release it before its dependencies.
                throw new IllegalArgumentException("a job cannot both depend on jobs and be in a sequence (sequenceKey)");
            }
            if (sequenceKey != null && awaitSignal != null) {
                // A sequence's jobs behind its head are 'waiting' too: a waiting head would look like one of them.
                throw new IllegalArgumentException("a job cannot both wait for a signal and be in a sequence (sequenceKey)");
            }
            if (debounceKey != null) {
                checkDebounceAlone();
            }
            if (delayAfterDependencies != null && dependsOn.length == 0) {
                throw new IllegalArgumentException("delayAfterDependencies needs dependsOn; a job without dependencies "
                        + "takes delay(..) instead");
            }
            return new JobOptions(this);
        }

        /** A debounced job's run time and identity come from its key: the options that would contradict them. */
        private void checkDebounceAlone() {
            String other = uniqueKey != null ? "a uniqueKey" : sequenceKey != null ? "a sequenceKey"
                    : dependsOn.length > 0 ? "dependsOn" : awaitSignal != null ? "awaitSignal"
                    : runAt != null ? "runAt" : delay != null ? "delay" : null;
            if (other != null) {
                throw new IllegalArgumentException("a debounced job cannot also have " + other
                        + " (debounce decides when it runs and which enqueues it absorbs)");
            }
        }
    }
}
