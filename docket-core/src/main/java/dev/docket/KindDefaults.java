package dev.docket;

import java.util.Objects;

/**
 * What every job of a kind gets where its own {@link JobOptions} leave it unset: the queue, priority,
 * max attempts, tenant, and whether its death halts its sequence. Only what belongs to a kind is here; a
 * run time, unique key, metadata, sequence key or dependency belongs to one job and is given with that
 * job. Immutable; build with {@link #builder()}, or use {@link #none()}. Given with
 * {@link JobKind.Builder#defaults}, they apply on every enqueue path alike, whether the job passes
 * options or not (and to the string forms of a kind declared with {@link Docket.Builder#kind}).
 *
 * <p>Each value is checked as {@link JobOptions.Builder} checks it (a queue name, a priority from -32768
 * to 32767, at least one attempt, a tenant of valid text).
 */
public final class KindDefaults {

    private static final KindDefaults NONE = builder().build();

    /** The same values as options, checked by the rules of {@link JobOptions.Builder}; what a job's options fall back to. */
    private final JobOptions options;

    private KindDefaults(JobOptions options) {
        this.options = options;
    }

    /** No defaults: queue {@code "default"}, priority 0, the kind's retry policy's max attempts, no tenant, no halt. */
    public static KindDefaults none() {
        return NONE;
    }

    /** A builder with nothing set. */
    public static Builder builder() {
        return new Builder();
    }

    /** The queue, or {@code null} when unset (then {@code "default"}). */
    public String queue() {
        return options.queueOrNull();
    }

    /** The priority, or {@code null} when unset (then 0). */
    public Integer priority() {
        return options.priorityOrNull();
    }

    /** Max attempts, or {@code null} when unset (then the kind's retry policy's). */
    public Integer maxAttempts() {
        return options.maxAttempts();
    }

    /** The tenant, or {@code null} for none. */
    public String tenant() {
        return options.tenant();
    }

    /** Whether a dead job halts its sequence, or {@code null} when unset (then it does not). */
    public Boolean haltSequenceOnDeath() {
        return options.haltSequenceOnDeath();
    }

    /** These defaults as the options of a job that sets nothing itself. */
    JobOptions asOptions() {
        return options;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KindDefaults other && options.equals(other.options);
    }

    @Override
    public int hashCode() {
        return options.hashCode();
    }

    @Override
    public String toString() {
        return "KindDefaults[queue=" + queue() + ", priority=" + priority() + ", maxAttempts=" + maxAttempts()
                + ", tenant=" + tenant() + ", haltSequenceOnDeath=" + haltSequenceOnDeath() + "]";
    }

    /** Collects a kind's defaults; each setter checks its value at once. */
    public static final class Builder {
        private final JobOptions.Builder options = JobOptions.builder();

        private Builder() {
        }

        /** The queue: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}. */
        public Builder queue(String queue) {
            options.queue(Objects.requireNonNull(queue, "queue"));
            return this;
        }

        /** Smaller runs first within a queue; from -32768 to 32767. */
        public Builder priority(int priority) {
            options.priority(priority);
            return this;
        }

        /** At least 1; overrides the kind's retry policy's count. */
        public Builder maxAttempts(int maxAttempts) {
            options.maxAttempts(maxAttempts);
            return this;
        }

        /** The tenant: 1 to 512 characters of valid Unicode without NUL. */
        public Builder tenant(String tenant) {
            options.tenant(Objects.requireNonNull(tenant, "tenant"));
            return this;
        }

        /** Whether a dead job of the kind halts its sequence ({@link JobOptions.Builder#haltSequenceOnDeath}). */
        public Builder haltSequenceOnDeath(boolean halt) {
            options.haltSequenceOnDeath(halt);
            return this;
        }

        public KindDefaults build() {
            return new KindDefaults(options.build());
        }
    }
}
