package dev.docket.test;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.docket.JobInfo;
import dev.docket.JobKind;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * What {@link DocketAssertions} look for in a job: always its kind, and optionally its payload (as a
 * type, tested by a predicate), queue and run time. Immutable: each {@code with...} returns a new one.
 *
 * <pre>{@code
 * JobMatcher.kind("send_email").withQueue("email")
 *         .withPayload(SendEmail.class, mail -> mail.to().equals("ada@example.com"))
 *         .withRunAtBetween(now.plus(Duration.ofMinutes(4)), now.plus(Duration.ofMinutes(6)))
 * }</pre>
 */
public final class JobMatcher {

    private static final ObjectMapper MAPPER = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /** One condition: its description, and the reason a job fails it (null when it holds). */
    private interface Condition {
        String describe();

        String mismatch(JobInfo job);
    }

    private final String kind;
    /** Immutable: {@link #with} builds a new list. */
    private final List<Condition> conditions;

    private JobMatcher(String kind, List<Condition> conditions) {
        this.kind = kind;
        this.conditions = conditions;
    }

    /** Jobs of {@code kind}. */
    public static JobMatcher kind(String kind) {
        if (kind == null || kind.isBlank()) {
            throw new IllegalArgumentException("kind must not be blank, was " + (kind == null ? "null" : "'" + kind + "'"));
        }
        return new JobMatcher(kind, List.of());
    }

    /** Jobs of {@code kind}'s name. */
    public static JobMatcher kind(JobKind<?> kind) {
        return kind(Objects.requireNonNull(kind, "kind").name());
    }

    /** The kind these jobs must have. */
    public String kindName() {
        return kind;
    }

    /** Only jobs in {@code queue}. */
    public JobMatcher withQueue(String queue) {
        Objects.requireNonNull(queue, "queue");
        return with(new Condition() {
            @Override
            public String describe() {
                return "in queue '" + queue + "'";
            }

            @Override
            public String mismatch(JobInfo job) {
                return job.queue().equals(queue) ? null : "its queue is '" + job.queue() + "'";
            }
        });
    }

    /**
     * Only jobs whose payload, read as {@code type} (with Java time support; unknown properties
     * ignored), satisfies {@code predicate}. A payload that does not map to {@code type} does not match.
     * Failure messages never show payloads (Docket keeps them private), only that one did not match.
     */
    public <T> JobMatcher withPayload(Class<T> type, Predicate<? super T> predicate) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(predicate, "predicate");
        return with(new Condition() {
            @Override
            public String describe() {
                return "with a payload of type " + type.getSimpleName() + " matching the predicate";
            }

            @Override
            public String mismatch(JobInfo job) {
                T payload;
                try {
                    payload = MAPPER.readValue(job.payload(), type);
                } catch (IOException e) {
                    return "its payload does not map to " + type.getSimpleName();
                }
                return predicate.test(payload) ? null : "its payload does not match the predicate";
            }
        });
    }

    /** Only jobs of a {@link JobKind} whose payload satisfies {@code predicate}; see {@link #withPayload(Class, Predicate)}. */
    public static <T> JobMatcher kind(JobKind<T> kind, Predicate<? super T> payload) {
        return kind(kind).withPayload(kind.payloadType(), payload);
    }

    /** Only jobs due to run from {@code from} to {@code to}, both included (by the database clock). */
    public JobMatcher withRunAtBetween(Instant from, Instant to) {
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (to.isBefore(from)) {
            throw new IllegalArgumentException("the run-at window must not end (" + to + ") before it starts (" + from + ")");
        }
        return with(new Condition() {
            @Override
            public String describe() {
                return "due to run from " + from + " to " + to;
            }

            @Override
            public String mismatch(JobInfo job) {
                return job.runAt().isBefore(from) || job.runAt().isAfter(to) ? "it runs at " + job.runAt() : null;
            }
        });
    }

    private JobMatcher with(Condition condition) {
        return new JobMatcher(kind, Stream.concat(conditions.stream(), Stream.of(condition)).toList());
    }

    /** Why {@code job} does not match, one reason per failed condition; empty when it matches. */
    List<String> mismatches(JobInfo job) {
        List<String> reasons = new ArrayList<>();
        for (Condition c : conditions) {
            String reason = c.mismatch(job);
            if (reason != null) {
                reasons.add(reason);
            }
        }
        return reasons;
    }

    /** For failure messages: {@code a job of kind 'send_email' in queue 'email'}. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder("of kind '").append(kind).append("'");
        for (Condition c : conditions) {
            text.append(' ').append(c.describe());
        }
        return text.toString();
    }
}
