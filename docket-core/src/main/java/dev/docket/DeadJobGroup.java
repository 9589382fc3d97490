package dev.docket;

import java.time.Instant;

/**
 * Dead jobs of one kind that died of the same error (the first line of their last error: usually
 * the exception and its message), for triage: which failure, how many, since when.
 */
public record DeadJobGroup(String kind, String error, long count, Instant firstDiedAt, Instant lastDiedAt) {
}
