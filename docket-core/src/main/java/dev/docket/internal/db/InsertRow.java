package dev.docket.internal.db;

/**
 * One validated job to insert. {@code runAtMicros} (epoch microseconds) or {@code delayMillis}
 * (after the database's now()) may be null; {@code uniqueForMillis} is null for a unique key held
 * only while the job is live; {@code payloadJson} is never logged. {@code sequenceKey} is null for a
 * job outside any sequence, and {@code haltSequence} says whether its death halts its sequence.
 */
public record InsertRow(String queue, String kind, String payloadJson, int payloadVersion, int priority,
                        Long runAtMicros, Long delayMillis, int maxAttempts, String tenant, String uniqueKey,
                        Long uniqueForMillis, String metadataJson, String sequenceKey, boolean haltSequence) {

    @Override
    public String toString() {
        return "InsertRow[kind=" + kind + ", queue=" + queue + "]";
    }
}
