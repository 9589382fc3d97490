package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The body of {@code POST /api/jobs} (and each job of {@code POST /api/jobs/batch}) as a record
 * Jackson maps strictly (see {@link JsonBodies#mapper()}: unknown fields and wrong types are errors that
 * name the field), and its conversion to a {@link NewJob}, where the library's rules apply.
 */
public final class JobRequests {

    /**
     * One job to enqueue. {@code payload} is required ({@code {}} for none); {@code runAt} and
     * {@code delay} exclude each other; durations look like {@code 500ms, 30s, 5m, 2h, 1d} or ISO-8601.
     * {@code strictKinds} (of {@code POST /api/jobs} only) refuses a kind no live worker serves ({@link StrictKinds}).
     * {@code sequenceKey} and {@code haltSequenceOnDeath} are {@link JobOptions.Builder#sequenceKey} and
     * {@link JobOptions.Builder#haltSequenceOnDeath}. {@code debounce} is {@link JobOptions.Builder#debounce}.
     */
    public record Job(String kind, JsonNode payload, String queue, Integer priority, String runAt, String delay,
                      Integer maxAttempts, String uniqueKey, String uniqueFor, String tenant,
                      Map<String, String> metadata, Boolean strictKinds, String sequenceKey,
                      Boolean haltSequenceOnDeath, Debounce debounce) {
    }

    /** A job's debounce: its key and window (required), and its maximum wait (optional: ten windows). */
    public record Debounce(String key, String window, String maxWait) {
    }

    /** The body of {@code POST /api/jobs/batch}; {@code strictKinds} applies to every job. */
    public record Batch(List<Job> jobs, Boolean strictKinds) {
    }

    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    private JobRequests() {
    }

    /** The job as the library takes it; a 400 saying what is wrong otherwise. */
    public static NewJob parse(Job body) {
        if (body.kind() == null) {
            throw ApiException.badRequest("kind is required");
        }
        if (body.payload() == null || body.payload().isNull()) {
            throw ApiException.badRequest("payload is required (use {} for none)");
        }
        try {
            PayloadCheck.check(body.payload());
            return NewJob.of(body.kind(), body.payload(), options(body));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    /**
     * The options given; one left out keeps the kind's configured value, else the library's default.
     * The setters are unbound method references and lambdas that capture nothing: no allocation per job.
     */
    private static JobOptions options(Job body) {
        JobOptions.Builder options = JobOptions.builder();
        ifGiven(options, body.queue(), JobOptions.Builder::queue);
        ifGiven(options, body.priority(), JobOptions.Builder::priority);
        if (body.runAt() != null && body.delay() != null) {
            throw ApiException.badRequest("give runAt or delay, not both");
        }
        ifGiven(options, body.runAt(), (o, runAt) -> o.runAt(parseInstant(runAt)));
        ifGiven(options, body.delay(), (o, delay) -> o.delay(parseDuration(delay)));
        ifGiven(options, body.maxAttempts(), JobOptions.Builder::maxAttempts);
        ifGiven(options, body.uniqueKey(), JobOptions.Builder::uniqueKey);
        ifGiven(options, body.uniqueFor(), (o, uniqueFor) -> o.uniqueFor(parseDuration(uniqueFor)));
        ifGiven(options, body.tenant(), JobOptions.Builder::tenant);
        ifGiven(options, body.sequenceKey(), JobOptions.Builder::sequenceKey);
        ifGiven(options, body.haltSequenceOnDeath(), JobOptions.Builder::haltSequenceOnDeath);
        if (body.debounce() != null) {
            Debounce d = body.debounce();
            if (d.key() == null || d.window() == null) {
                throw ApiException.badRequest("debounce needs a key and a window (and optionally maxWait)");
            }
            if (d.maxWait() == null) {
                options.debounce(d.key(), parseDuration(d.window()));
            } else {
                options.debounce(d.key(), parseDuration(d.window()), parseDuration(d.maxWait()));
            }
        }
        if (body.metadata() != null) {
            body.metadata().forEach((key, value) -> {
                if (value == null) {
                    throw ApiException.badRequest("metadata." + clip(key) + " must be a string");
                }
                options.metadata(key, value);
            });
        }
        return options.build();
    }

    private static <T> void ifGiven(JobOptions.Builder options, T value, BiConsumer<JobOptions.Builder, T> option) {
        if (value != null) {
            option.accept(options, value);
        }
    }

    static Instant parseInstant(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest("runAt must be an ISO-8601 instant such as 2026-01-31T12:00:00Z");
        }
    }

    /** Parses {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d}, or an ISO-8601 duration. */
    public static Duration parseDuration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text.trim());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("a duration must look like 500ms, 30s, 5m, 2h, 1d or PT30S, was '"
                    + clip(text) + "'");
        }
    }

    static String clip(String s) {
        String shown = s.length() > 60 ? s.substring(0, 60) + "..." : s;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }
}
