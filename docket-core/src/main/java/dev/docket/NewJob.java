package dev.docket;

import java.util.Objects;

/**
 * One job for {@link Docket#enqueueAll}: a kind, a payload (any Jackson-mappable object, or a
 * {@code JsonNode}) and its options.
 */
public record NewJob(String kind, Object payload, JobOptions options) {

    public NewJob {
        Docket.checkKind(kind);
        Objects.requireNonNull(options, "options");
    }

    /** A job with {@link JobOptions#defaults()}. */
    public static NewJob of(String kind, Object payload) {
        return new NewJob(kind, payload, JobOptions.defaults());
    }

    public static NewJob of(String kind, Object payload, JobOptions options) {
        return new NewJob(kind, payload, options);
    }

    @Override
    public String toString() {
        return "NewJob[kind=" + kind + ", options=" + options + "]";
    }
}
