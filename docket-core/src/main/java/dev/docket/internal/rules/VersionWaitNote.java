package dev.docket.internal.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Reads the note a worker leaves in a job's metadata when it puts the job back to wait for a worker
 * that reads its (newer) payload version: {@code docket.waiting} (why), {@code docket.waitingSince}
 * (when the wait began) and {@code docket.waitingNext} (when it is due back). The note describes the
 * job's current wait only while the job is due at {@code docket.waitingNext}: a job that was run,
 * retried or replayed since carries an old note.
 */
public final class VersionWaitNote {

    public static final String REASON = "docket.waiting";
    public static final String SINCE = "docket.waitingSince";
    public static final String NEXT = "docket.waitingNext";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private VersionWaitNote() {
    }

    /** When the job's current wait began, or null if it is not waiting (or its note is unreadable). */
    public static Instant since(String metadataJson, Instant runAt) {
        JsonNode note = current(metadataJson, runAt);
        return note == null ? null : instant(note.path(SINCE).asText(null));
    }

    /** Why the job waits now, or null if it is not waiting. */
    public static String reason(String metadataJson, Instant runAt) {
        JsonNode note = current(metadataJson, runAt);
        return note == null ? null : note.path(REASON).asText(null);
    }

    private static JsonNode current(String metadataJson, Instant runAt) {
        // Most jobs never waited: their metadata does not mention it, and is not parsed.
        if (metadataJson == null || runAt == null || !metadataJson.contains(NEXT)) {
            return null;
        }
        try {
            JsonNode metadata = MAPPER.readTree(metadataJson);
            Instant next = instant(metadata.path(NEXT).asText(null));
            return runAt.equals(next) ? metadata : null;
        } catch (java.io.IOException e) {
            return null;
        }
    }

    private static Instant instant(String text) {
        try {
            return text == null ? null : Instant.parse(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
