package dev.docket;

import dev.docket.internal.rules.JobOptionRules;
import java.util.Objects;

/**
 * One job for {@link Docket#enqueueAll}: a kind, a payload (any Jackson-mappable object, or a
 * {@code JsonNode}) and its options. {@link #of(JobKind, Object, JobOptions)} makes one of a typed kind.
 */
public record NewJob(String kind, Object payload, JobOptions options) {

    public NewJob {
        JobOptionRules.checkKind(kind);
        Objects.requireNonNull(options, "options");
    }

    /** A job with {@link JobOptions#defaults()}. */
    public static NewJob of(String kind, Object payload) {
        return new NewJob(kind, payload, JobOptions.defaults());
    }

    public static NewJob of(String kind, Object payload, JobOptions options) {
        return new NewJob(kind, payload, options);
    }

    /** A job of a {@link JobKind} with the kind's defaults, for a batch that mixes kinds. */
    public static <T> NewJob of(JobKind<T> kind, T payload) {
        return of(kind, payload, JobOptions.defaults());
    }

    /**
     * A job of a {@link JobKind}, type-checked, for a batch that mixes kinds: the kind's defaults, payload
     * version and (when it has its own retry policy) max attempts fill what {@code options} leave
     * unset, so the job is enqueued as {@link Docket#enqueue(JobKind, Object, JobOptions)} would.
     */
    public static <T> NewJob of(JobKind<T> kind, T payload, JobOptions options) {
        Objects.requireNonNull(kind, "kind");
        return new NewJob(kind.name(), payload, kind.resolve(options));
    }

    @Override
    public String toString() {
        return "NewJob[kind=" + kind + ", options=" + options + "]";
    }
}
