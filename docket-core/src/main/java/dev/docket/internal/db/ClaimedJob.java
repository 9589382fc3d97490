package dev.docket.internal.db;

import java.time.Instant;

/**
 * A job this worker holds: the row as the claim returned it. {@code payload} is JSON text and never
 * logged; {@code sequenceKey} is null for a job outside any sequence.
 */
public record ClaimedJob(long id, String queue, String kind, String payload, int payloadVersion, int priority,
                         Instant runAt, int attempt, int maxAttempts, String tenant, String metadata,
                         Instant leaseUntil, String sequenceKey) {

    public Fence fence() {
        return new Fence(id, attempt);
    }

    @Override
    public String toString() {
        return "ClaimedJob[id=" + id + ", kind=" + kind + ", queue=" + queue + ", attempt=" + attempt + "]";
    }
}
