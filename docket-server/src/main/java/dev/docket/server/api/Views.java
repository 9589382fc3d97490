package dev.docket.server.api;

import dev.docket.JobError;
import dev.docket.JobInfo;
import dev.docket.JobState;
import dev.docket.JobSummary;
import dev.docket.QueueStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The JSON shapes of the API: plain maps in a stable field order. */
public final class Views {

    private Views() {
    }

    public static String state(JobState state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    /**
     * One job: the fields of its summary, then the rest; its payload only when the caller may see
     * it, else {@code payloadRedacted: true}.
     */
    public static Map<String, Object> job(JobInfo j, boolean showPayload) {
        Map<String, Object> m = summary(new JobSummary(j.id(), j.queue(), j.kind(), j.state(), j.priority(), j.attempt(),
                j.maxAttempts(), j.runAt(), j.createdAt(), j.attemptedAt(), j.finishedAt(), j.tenant(), j.errors().size(),
                j.deadReason()));
        m.put("uniqueKey", j.uniqueKey());
        m.put("lockedBy", j.lockedBy());
        m.put("payloadVersion", j.payloadVersion());
        m.put("metadata", new RawJson(j.metadata()));
        if (showPayload) {
            m.put("payload", new RawJson(j.payload()));
        } else {
            m.put("payloadRedacted", true);
        }
        m.put("errors", j.errors().stream().map(Views::error).toList());
        return m;
    }

    private static Map<String, Object> error(JobError e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("attempt", e.attempt());
        m.put("at", e.at());
        m.put("message", e.message());
        m.put("worker", e.worker());
        return m;
    }

    public static Map<String, Object> summary(JobSummary j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", j.id());
        m.put("kind", j.kind());
        m.put("queue", j.queue());
        m.put("state", state(j.state()));
        m.put("priority", j.priority());
        m.put("attempt", j.attempt());
        m.put("maxAttempts", j.maxAttempts());
        m.put("runAt", j.runAt());
        m.put("createdAt", j.createdAt());
        m.put("attemptedAt", j.attemptedAt());
        m.put("finishedAt", j.finishedAt());
        m.put("tenant", j.tenant());
        m.put("errorCount", j.errorCount());
        m.put("deadReason", j.deadReason());
        return m;
    }

    /** A page of summaries with the cursor of the next page ({@code null} on the last). */
    public static Map<String, Object> page(String name, List<JobSummary> rows, int limit) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(name, rows.stream().map(Views::summary).toList());
        m.put("next", rows.size() == limit ? rows.getLast().id() : null);
        return m;
    }

    public static Map<String, Object> stats(QueueStats s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", s.queue());
        m.put("kind", s.kind());
        m.put("scheduled", s.scheduled());
        m.put("ready", s.ready());
        m.put("running", s.running());
        m.put("lagSeconds", s.oldestReadyAgeSeconds());
        m.put("completedPerMinute", s.completedLastMinute());
        m.put("failedPerMinute", s.failedLastMinute());
        m.put("dead", s.dead());
        m.put("deadLast24h", s.deadLast24h());
        m.put("pickupP50Millis", s.pickupP50Millis());
        m.put("pickupP99Millis", s.pickupP99Millis());
        return m;
    }
}
