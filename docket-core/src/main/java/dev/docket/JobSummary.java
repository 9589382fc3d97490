package dev.docket;

import java.time.Instant;

/**
 * One row of a job listing: everything but the payload and the error texts, which list views
 * never read (a page of large payloads must not be loaded to show ids).
 *
 * @param errorCount failed or lost attempts recorded so far
 * @param finishedAt when it completed, was cancelled or died; {@code null} while live
 * @param deadReason why it died, for {@link JobState#DEAD} jobs
 */
public record JobSummary(long id, String queue, String kind, JobState state, int priority, int attempt,
                         int maxAttempts, Instant runAt, Instant createdAt, Instant attemptedAt, Instant finishedAt,
                         String tenant, int errorCount, String deadReason) {
}
