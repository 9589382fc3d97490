package dev.docket;

/**
 * The cluster's outcome counters of one queue and kind, as {@link DocketAdmin#outcomeTotals()} reads
 * them: every outcome any worker (or the maintenance leader's rescuer) wrote since the schema reached
 * version 14, counted in the transaction that wrote it. They never go down: worker restarts, pruned
 * history and purged dead letters change none of them. Counted exactly as the per-process counters
 * ({@code docket.jobs.completed}, {@code docket.job.attempts.failed}, {@code docket.jobs.dead}) count.
 *
 * @param completed      jobs whose handler returned
 * @param failedAttempts attempts that failed: retried later, or dead (a dead job's last attempt counts
 *                       here too), including attempts whose worker lost its lease
 * @param dead           jobs moved to the dead-letter table
 */
public record OutcomeTotals(String queue, String kind, long completed, long failedAttempts, long dead) {
}
