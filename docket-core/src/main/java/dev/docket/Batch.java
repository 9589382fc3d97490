package dev.docket;

import dev.docket.internal.rules.JobOptionRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Many jobs enqueued together, with callback jobs that run exactly once when they have all finished,
 * all succeeded, or one died ({@link Docket#enqueueBatch}). A callback is an ordinary job that depends
 * on every job of the batch ({@link DependencyMode}); it is settled in the transaction that finishes the
 * batch job that decides it, under the callback's row lock, so concurrent completions, crashes and
 * retries can neither run it twice nor lose it. A callback that can no longer run (all succeeded, so
 * none died; or one died, so not all succeeded) is cancelled, with the reason in its metadata.
 *
 * <pre>{@code
 * Batch batch = Batch.builder()
 *         .jobs("import_row", rows)
 *         .onAllFinished("import_summary", new Summary(importId))
 *         .onAnyDied("page_oncall", new Alert(importId))
 *         .build();
 * BatchEnqueued enqueued = docket.enqueueBatch(batch);
 * }</pre>
 *
 * @param jobs          the batch's jobs, at least one and at most {@link JobOptions#MAX_DEPENDENCIES}
 * @param onAllFinished run once every job completed, died or was cancelled; null for none
 * @param onAllSucceeded run once every job completed (cancelled if one dies or is cancelled); null for none
 * @param onAnyDied     run once when the first job dies (cancelled once all finished and none died); null for none
 */
public record Batch(List<NewJob> jobs, NewJob onAllFinished, NewJob onAllSucceeded, NewJob onAnyDied) {

    public Batch {
        jobs = List.copyOf(jobs);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects a batch's jobs and callbacks. */
    public static final class Builder {
        private final List<NewJob> jobs = new ArrayList<>();
        private NewJob onAllFinished;
        private NewJob onAllSucceeded;
        private NewJob onAnyDied;

        private Builder() {
        }

        /** Adds one job; its options may not set dependencies (a batch job does not wait). */
        public Builder job(NewJob job) {
            Objects.requireNonNull(job, "job");
            if (job.options().dependsOnIds().length > 0) {
                throw new IllegalArgumentException("a batch job cannot depend on other jobs");
            }
            if (jobs.size() >= JobOptions.MAX_DEPENDENCIES) {
                throw new IllegalArgumentException("a batch has at most " + JobOptions.MAX_DEPENDENCIES + " jobs");
            }
            jobs.add(job);
            return this;
        }

        /** Adds one job of {@code kind} with {@link JobOptions#defaults()}. */
        public Builder job(String kind, Object payload) {
            return job(NewJob.of(kind, payload));
        }

        /** Adds a job of {@code kind} for each payload. */
        public Builder jobs(String kind, Iterable<?> payloads) {
            Objects.requireNonNull(payloads, "payloads");
            for (Object payload : payloads) {
                job(NewJob.of(kind, payload));
            }
            return this;
        }

        /** Adds one job of a {@link JobKind}, type-checked, with the kind's settings ({@link NewJob#of(JobKind, Object)}). */
        public <T> Builder job(JobKind<T> kind, T payload) {
            return job(NewJob.of(kind, payload));
        }

        /** Adds a job of a {@link JobKind} for each payload, with the kind's settings. */
        public <T> Builder jobs(JobKind<T> kind, Iterable<? extends T> payloads) {
            Objects.requireNonNull(payloads, "payloads");
            for (T payload : payloads) {
                job(NewJob.of(kind, payload));
            }
            return this;
        }

        /** The job that runs once every job has finished, whatever the outcome. */
        public Builder onAllFinished(String kind, Object payload) {
            return onAllFinished(NewJob.of(kind, payload));
        }

        /** Like {@link #onAllFinished(String, Object)}, of a {@link JobKind} with its settings. */
        public <T> Builder onAllFinished(JobKind<T> kind, T payload) {
            return onAllFinished(NewJob.of(kind, payload));
        }

        /** Like {@link #onAllFinished(String, Object)}, with options (not dependencies: the batch gives those). */
        public Builder onAllFinished(NewJob callback) {
            this.onAllFinished = callback(callback);
            return this;
        }

        /** The job that runs once every job has completed. */
        public Builder onAllSucceeded(String kind, Object payload) {
            return onAllSucceeded(NewJob.of(kind, payload));
        }

        /** Like {@link #onAllSucceeded(String, Object)}, of a {@link JobKind} with its settings. */
        public <T> Builder onAllSucceeded(JobKind<T> kind, T payload) {
            return onAllSucceeded(NewJob.of(kind, payload));
        }

        /** Like {@link #onAllSucceeded(String, Object)}, with options (not dependencies). */
        public Builder onAllSucceeded(NewJob callback) {
            this.onAllSucceeded = callback(callback);
            return this;
        }

        /** The job that runs once, when the first job dies. */
        public Builder onAnyDied(String kind, Object payload) {
            return onAnyDied(NewJob.of(kind, payload));
        }

        /** Like {@link #onAnyDied(String, Object)}, of a {@link JobKind} with its settings. */
        public <T> Builder onAnyDied(JobKind<T> kind, T payload) {
            return onAnyDied(NewJob.of(kind, payload));
        }

        /** Like {@link #onAnyDied(String, Object)}, with options (not dependencies). */
        public Builder onAnyDied(NewJob callback) {
            this.onAnyDied = callback(callback);
            return this;
        }

        /** @throws IllegalArgumentException if the batch has no job */
        public Batch build() {
            if (jobs.isEmpty()) {
                throw new IllegalArgumentException("a batch needs at least one job");
            }
            return new Batch(jobs, onAllFinished, onAllSucceeded, onAnyDied);
        }

        private static NewJob callback(NewJob job) {
            Objects.requireNonNull(job, "callback");
            JobOptionRules.checkKind(job.kind());
            if (job.options().dependsOnIds().length > 0) {
                throw new IllegalArgumentException("a batch callback depends on the batch's jobs, not on dependsOn ids");
            }
            return job;
        }
    }
}
