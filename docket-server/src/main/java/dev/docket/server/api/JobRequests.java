package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the JSON body of {@code POST /api/jobs} into a {@link NewJob}, strictly: unknown fields and
 * wrong types are errors that name the field, never silently ignored.
 */
public final class JobRequests {

    private static final Set<String> FIELDS = Set.of("kind", "payload", "queue", "priority", "runAt", "delay",
            "maxAttempts", "uniqueKey", "uniqueFor", "tenant", "metadata");
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    private JobRequests() {
    }

    public static NewJob parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object");
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw ApiException.badRequest("unknown field '" + clip(name) + "'; fields are " + FIELDS);
            }
        }
        String kind = text(body, "kind", true);
        JsonNode payload = body.has("payload") ? body.get("payload") : null;
        if (payload == null || payload.isNull()) {
            throw ApiException.badRequest("payload is required (use {} for none)");
        }
        try {
            PayloadCheck.check(payload);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        try {
            JobOptions.Builder options = JobOptions.builder();
            String queue = text(body, "queue", false);
            if (queue != null) {
                options.queue(queue);
            }
            if (body.hasNonNull("priority")) {
                options.priority(integer(body, "priority"));
            }
            if (body.hasNonNull("runAt") && body.hasNonNull("delay")) {
                throw ApiException.badRequest("give runAt or delay, not both");
            }
            String runAt = text(body, "runAt", false);
            if (runAt != null) {
                try {
                    options.runAt(Instant.parse(runAt));
                } catch (DateTimeParseException e) {
                    throw ApiException.badRequest("runAt must be an ISO-8601 instant such as 2026-01-31T12:00:00Z");
                }
            }
            String delay = text(body, "delay", false);
            if (delay != null) {
                options.delay(parseDuration(delay));
            }
            if (body.hasNonNull("maxAttempts")) {
                options.maxAttempts(integer(body, "maxAttempts"));
            }
            String uniqueKey = text(body, "uniqueKey", false);
            if (uniqueKey != null) {
                options.uniqueKey(uniqueKey);
            }
            String uniqueFor = text(body, "uniqueFor", false);
            if (uniqueFor != null) {
                options.uniqueFor(parseDuration(uniqueFor));
            }
            String tenant = text(body, "tenant", false);
            if (tenant != null) {
                options.tenant(tenant);
            }
            JsonNode metadata = body.get("metadata");
            if (metadata != null && !metadata.isNull()) {
                if (!metadata.isObject()) {
                    throw ApiException.badRequest("metadata must be an object of strings");
                }
                for (Iterator<java.util.Map.Entry<String, JsonNode>> it = metadata.fields(); it.hasNext(); ) {
                    java.util.Map.Entry<String, JsonNode> e = it.next();
                    if (!e.getValue().isTextual()) {
                        throw ApiException.badRequest("metadata." + clip(e.getKey()) + " must be a string");
                    }
                    options.metadata(e.getKey(), e.getValue().asText());
                }
            }
            return NewJob.of(kind, payload, options.build());
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
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

    private static String text(JsonNode body, String field, boolean required) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            if (required) {
                throw ApiException.badRequest(field + " is required");
            }
            return null;
        }
        if (!node.isTextual()) {
            throw ApiException.badRequest(field + " must be a string");
        }
        return node.asText();
    }

    private static int integer(JsonNode body, String field) {
        JsonNode node = body.get(field);
        if (!node.isIntegralNumber() || !node.canConvertToInt()) {
            throw ApiException.badRequest(field + " must be a whole number");
        }
        return node.asInt();
    }

    static String clip(String s) {
        String shown = s.length() > 60 ? s.substring(0, 60) + "..." : s;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }
}
