package dev.docket.chaos;

import java.time.Duration;
import java.time.Instant;

/**
 * When a disruption (a restart, a failover, a switchover) had the database down: from its start until it took
 * connections (for a failover, writes) again. {@code what} names it in the report ("failover", "switchover").
 */
record Outage(String what, Instant start, Instant end) {

    Duration length() {
        return Duration.between(start, end);
    }

    /** Whether the outage and the span from {@code from} to {@code to} overlap. */
    boolean overlaps(Instant from, Instant to) {
        return start.isBefore(to) && end.isAfter(from);
    }
}
