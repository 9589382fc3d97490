package dev.docket;

import dev.docket.internal.text.TextRules;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * How one job is enqueued. Immutable; build with {@link #builder()}, or use {@link #defaults()}.
 *
 * <p>Defaults: queue {@code "default"}, priority {@code 0}, due now, max attempts from the kind's
 * {@link RetryPolicy} (20 unless configured), no unique key, no tenant, no sequence key.
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
    public static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");
    /** Longest unique key and tenant, in characters. */
    public static final int MAX_KEY_LENGTH = 512;
    /** The earliest {@link Builder#runAt} accepted: 1970-01-01T00:00:00Z (any past instant means "now"). */
    public static final Instant EARLIEST_RUN_AT = Instant.parse("1970-01-01T00:00:00Z");
    /** The latest {@link Builder#runAt} accepted: 9999-12-31T23:59:59Z. */
    public static final Instant LATEST_RUN_AT = Instant.parse("9999-12-31T23:59:59Z");
    /** The most jobs one job may depend on ({@link Builder#dependsOn}). */
    public static final int MAX_DEPENDENCIES = 100_000;

    private static final JobOptions DEFAULTS = builder().build();

    /** A private copy of the builder that made these options, never changed after. */
    private final Builder values;

    private JobOptions(Builder b) {
        this.values = b.copy();
    }

    /** Queue {@code "default"}, priority 0, due now, the kind's max attempts, no unique key, no tenant. */
    public static JobOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A copy of these options to change. */
    public Builder toBuilder() {
        return values.copy();
    }

    public String queue() {
        return values.queue;
    }

    public int priority() {
        return values.priority;
    }

    /** These options with the kind's defaults ({@link Docket.Builder#kindDefaults}) for what they leave unset. */
    JobOptions withDefaults(JobOptions kindDefaults) {
        if (kindDefaults == null) {
            return this;
        }
        Builder b = toBuilder();
        if (!values.queueSet && kindDefaults.values.queueSet) {
            b.queue(kindDefaults.values.queue);
        }
        if (!values.prioritySet && kindDefaults.values.prioritySet) {
            b.priority(kindDefaults.values.priority);
        }
        if (values.maxAttempts == null && kindDefaults.values.maxAttempts != null) {
            b.maxAttempts(kindDefaults.values.maxAttempts);
        }
        if (values.tenant == null && kindDefaults.values.tenant != null) {
            b.tenant(kindDefaults.values.tenant);
        }
        if (values.haltSequenceOnDeath == null && kindDefaults.values.haltSequenceOnDeath != null) {
            b.haltSequenceOnDeath(kindDefaults.values.haltSequenceOnDeath);
        }
        return b.build();
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

    /** The payload's version, or {@code null} for the kind's current one (see {@link Docket.Builder#payloadVersion}). */
    public Integer payloadVersion() {
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

    @Override
    public boolean equals(Object o) {
        return o instanceof JobOptions other && values.queue.equals(other.values.queue) && values.queueSet == other.values.queueSet
                && values.priority == other.values.priority && values.prioritySet == other.values.prioritySet
                && Objects.equals(values.runAt, other.values.runAt) && Objects.equals(values.delay, other.values.delay)
                && Objects.equals(values.maxAttempts, other.values.maxAttempts) && Objects.equals(values.uniqueKey, other.values.uniqueKey)
                && Objects.equals(values.tenant, other.values.tenant) && Objects.equals(values.payloadVersion, other.values.payloadVersion)
                && Objects.equals(values.uniqueFor, other.values.uniqueFor) && values.metadata.equals(other.values.metadata)
                && Objects.equals(values.sequenceKey, other.values.sequenceKey)
                && Objects.equals(values.haltSequenceOnDeath, other.values.haltSequenceOnDeath)
                && Arrays.equals(values.dependsOn, other.values.dependsOn) && values.dependencyMode == other.values.dependencyMode;
    }

    @Override
    public int hashCode() {
        return Objects.hash(values.queue, values.queueSet, values.priority, values.prioritySet, values.runAt, values.delay, values.maxAttempts, values.uniqueKey, values.tenant,
                values.payloadVersion, values.uniqueFor, values.metadata, values.sequenceKey, values.haltSequenceOnDeath, Arrays.hashCode(values.dependsOn),
                values.dependencyMode);
    }

    @Override
    public String toString() {
        return "JobOptions[values.queue=" + values.queue + ", values.priority=" + values.priority + ", values.runAt=" + values.runAt + ", values.delay=" + values.delay
                + ", values.maxAttempts=" + values.maxAttempts + ", values.uniqueKey=" + values.uniqueKey + ", values.tenant=" + values.tenant
                + ", values.payloadVersion=" + values.payloadVersion + ", values.uniqueFor=" + values.uniqueFor + ", values.metadata=" + values.metadata.keySet()
                + ", values.sequenceKey=" + values.sequenceKey + ", values.haltSequenceOnDeath=" + values.haltSequenceOnDeath
                + (values.dependsOn.length == 0 ? "" : ", values.dependsOn=" + values.dependsOn.length + " jobs (" + values.dependencyMode + ")") + "]";
    }

    /** Builds {@link JobOptions}; each setter checks its value and says what was wrong. */
    public static final class Builder {
        private String queue = "default";
        private boolean queueSet;
        private int priority;
        private boolean prioritySet;
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

        private Builder() {
        }

        private Builder copy() {
            Builder c = new Builder();
            c.queue = queue;
            c.queueSet = queueSet;
            c.priority = priority;
            c.prioritySet = prioritySet;
            c.runAt = runAt;
            c.delay = delay;
            c.maxAttempts = maxAttempts;
            c.uniqueKey = uniqueKey;
            c.tenant = tenant;
            c.payloadVersion = payloadVersion;
            c.uniqueFor = uniqueFor;
            c.metadata.putAll(metadata);
            c.sequenceKey = sequenceKey;
            c.haltSequenceOnDeath = haltSequenceOnDeath;
            c.dependsOn = dependsOn;
            c.dependencyMode = dependencyMode;
            return c;
        }

        /** The queue, default {@code "default"}: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}. */
        public Builder queue(String queue) {
            if (queue == null || !QUEUE_NAME.matcher(queue).matches()) {
                throw new IllegalArgumentException("queue must be 1 to 128 characters of A-Z a-z 0-9 _ . : -, was "
                        + TextRules.describe(queue));
            }
            this.queue = queue;
            this.queueSet = true;
            return this;
        }

        /** Smaller runs first within a queue; default 0; from -32768 to 32767. */
        public Builder priority(int priority) {
            if (priority < Short.MIN_VALUE || priority > Short.MAX_VALUE) {
                throw new IllegalArgumentException("priority must be between -32768 and 32767, was " + priority);
            }
            this.priority = priority;
            this.prioritySet = true;
            return this;
        }

        /**
         * Run no earlier than this instant (a past instant means now). Clears {@link #delay}. From
         * {@link #EARLIEST_RUN_AT} (1970-01-01T00:00:00Z) to {@link #LATEST_RUN_AT}
         * (9999-12-31T23:59:59Z), both included; an instant outside is refused rather than moved into
         * range.
         */
        public Builder runAt(Instant runAt) {
            Objects.requireNonNull(runAt, "runAt");
            if (runAt.isBefore(EARLIEST_RUN_AT) || runAt.isAfter(LATEST_RUN_AT)) {
                throw new IllegalArgumentException("runAt must be from " + EARLIEST_RUN_AT + " to " + LATEST_RUN_AT
                        + ", was " + runAt);
            }
            this.runAt = runAt;
            this.delay = null;
            return this;
        }

        /** Run this long after the database's {@code now()} at enqueue; not negative. Clears {@link #runAt}. */
        public Builder delay(Duration delay) {
            Objects.requireNonNull(delay, "delay");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must not be negative, was " + delay);
            }
            if (delay.compareTo(Duration.ofDays(365 * 100)) > 0) {
                throw new IllegalArgumentException("delay must be at most 100 years, was " + delay);
            }
            this.delay = delay;
            this.runAt = null;
            return this;
        }

        /** Attempts before the dead-letter table, at least 1; default: the kind's retry policy. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
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
            Objects.requireNonNull(period, "period");
            if (period.isNegative() || period.isZero() || period.compareTo(Duration.ofDays(366)) > 0) {
                throw new IllegalArgumentException("uniqueFor must be from 1ms to 366 days, was " + period);
            }
            this.uniqueFor = period;
            return this;
        }

        /**
         * Adds a tag stored with the job, such as a trace id or the request that caused it: up to 32
         * tags, keys of 1 to 64 characters, values of up to 512, both valid Unicode without NUL. Shown
         * to every role that may read jobs, so never put payload data here.
         */
        public Builder metadata(String key, String value) {
            Objects.requireNonNull(value, "value");
            if (key == null || key.isEmpty() || key.length() > 64 || !TextRules.isText(key)) {
                throw new IllegalArgumentException("a metadata key must be 1 to 64 characters without NUL or unpaired "
                        + "surrogates, was " + TextRules.describe(key));
            }
            if (value.length() > 512 || !TextRules.isText(value)) {
                throw new IllegalArgumentException("metadata value of " + TextRules.describe(key) + " must be at most 512 characters "
                        + "without NUL or unpaired surrogates");
            }
            if (!metadata.containsKey(key) && metadata.size() >= 32) {
                throw new IllegalArgumentException("at most 32 metadata entries");
            }
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

        /** The version of the payload's shape, at least 1; default: the kind's current version (1 unless configured). */
        public Builder payloadVersion(int version) {
            if (version < 1) {
                throw new IllegalArgumentException("payloadVersion must be >= 1, was " + version);
            }
            this.payloadVersion = version;
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
            Objects.requireNonNull(jobIds, "jobIds");
            if (jobIds.length > MAX_DEPENDENCIES) {
                throw new IllegalArgumentException("a job may depend on at most " + MAX_DEPENDENCIES + " jobs, was "
                        + jobIds.length);
            }
            HashSet<Long> seen = new HashSet<>();
            for (long id : jobIds) {
                if (id <= 0) {
                    throw new IllegalArgumentException("dependsOn ids must be positive job ids, was " + id);
                }
                if (!seen.add(id)) {
                    throw new IllegalArgumentException("dependsOn lists job " + id + " twice");
                }
            }
            this.dependsOn = jobIds.clone();
            return this;
        }

        /** When the job runs given its {@link #dependsOn} jobs; default {@link DependencyMode#ALL_COMPLETED}. */
        public Builder dependencyMode(DependencyMode mode) {
            this.dependencyMode = Objects.requireNonNull(mode, "mode");
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
            return new JobOptions(this);
        }

        private static String checkKey(String name, String value) {
            if (value != null && (value.isEmpty() || value.length() > MAX_KEY_LENGTH || !TextRules.isText(value))) {
                throw new IllegalArgumentException(name + " must be 1 to " + MAX_KEY_LENGTH
                        + " characters without NUL or unpaired surrogates, was " + TextRules.describe(value));
            }
            return value;
        }
    }
}
