package dev.docket;

import dev.docket.internal.rules.JobOptionRules;
import java.time.Instant;

/**
 * An operator's change to a job that has not started ({@link DocketAdmin#editJob}): a new payload, run time,
 * priority or queue, each left as it is unless set. Each value follows the rules of an enqueue
 * ({@link JobOptions.Builder}); the payload is checked when the edit is applied (JSON text within
 * {@code maxPayloadBytes}). Build one with {@link #builder()}, or {@link #runNow()} for "run it now".
 */
public final class JobEdit {

    private final String payloadJson;
    private final Instant runAt;
    private final boolean runNow;
    private final Integer priority;
    private final String queue;

    private JobEdit(Builder b) {
        this.payloadJson = b.payloadJson;
        this.runAt = b.runAt;
        this.runNow = b.runNow;
        this.priority = b.priority;
        this.queue = b.queue;
    }

    /** A builder that changes nothing yet. */
    public static Builder builder() {
        return new Builder();
    }

    /** The edit that makes the job due now (by the database's clock), changing nothing else. */
    public static JobEdit runNow() {
        return builder().runNow().build();
    }

    /** The new payload as JSON text, or {@code null} to keep it. */
    public String payloadJson() {
        return payloadJson;
    }

    /** The new run time, or {@code null} to keep it (or when {@link #isRunNow()}). */
    public Instant runAt() {
        return runAt;
    }

    /** Whether the job becomes due now. */
    public boolean isRunNow() {
        return runNow;
    }

    /** The new priority, or {@code null} to keep it. */
    public Integer priority() {
        return priority;
    }

    /** The new queue, or {@code null} to keep it. */
    public String queue() {
        return queue;
    }

    @Override
    public String toString() {
        // Never the payload: it may hold personal data.
        return "JobEdit[payload=" + (payloadJson == null ? "kept" : "replaced") + ", runAt="
                + (runNow ? "now" : runAt) + ", priority=" + priority + ", queue=" + queue + "]";
    }

    /** Builds a {@link JobEdit}; each setter checks its value and says what was wrong. */
    public static final class Builder {
        private String payloadJson;
        private Instant runAt;
        private boolean runNow;
        private Integer priority;
        private String queue;

        private Builder() {
        }

        /** The new payload, JSON text (checked when the edit is applied, as an enqueue's). */
        public Builder payload(String json) {
            if (json == null) {
                throw new IllegalArgumentException("payload must be JSON text, was null");
            }
            this.payloadJson = json;
            return this;
        }

        /**
         * The new run time, from {@link JobOptions#EARLIEST_RUN_AT} to {@link JobOptions#LATEST_RUN_AT}; a past
         * instant makes the job due now. Clears {@link #runNow()}.
         */
        public Builder runAt(Instant runAt) {
            this.runAt = JobOptionRules.checkRunAt(runAt);
            this.runNow = false;
            return this;
        }

        /** The job becomes due now, by the database's clock. Clears {@link #runAt}. */
        public Builder runNow() {
            this.runNow = true;
            this.runAt = null;
            return this;
        }

        /** The new priority, from -32768 to 32767 (smaller runs first). */
        public Builder priority(int priority) {
            this.priority = OptionChecks.between("priority", priority, Short.MIN_VALUE, Short.MAX_VALUE);
            return this;
        }

        /** The new queue: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}. */
        public Builder queue(String queue) {
            this.queue = JobOptionRules.checkQueue(queue);
            return this;
        }

        /** @throws IllegalArgumentException if the edit changes nothing */
        public JobEdit build() {
            if (payloadJson == null && runAt == null && !runNow && priority == null && queue == null) {
                throw new IllegalArgumentException("an edit changes at least one of payload, runAt (or run now), "
                        + "priority and queue");
            }
            return new JobEdit(this);
        }
    }
}
