package dev.docket;

/**
 * What one kind of job in one queue is doing now, as {@link DocketAdmin#stats()} computes it from
 * the tables (so it covers every worker in the cluster).
 *
 * @param scheduled             jobs waiting for their run-at, or for the leader to make them ready ({@code overdue})
 * @param ready                 jobs a worker may claim now
 * @param running               jobs claimed and not finished
 * @param overdue               of the scheduled jobs, those already due: the maintenance leader makes them
 *                              ready in its next round (a second by default); many for long means no leader runs
 * @param oldestReadyAgeSeconds how long the oldest ready job has been due: the queue's lag (0 when none)
 * @param completedLastMinute   jobs completed in the last minute
 * @param failedLastMinute      attempts that failed in the last minute (retried, or died)
 * @param dead                  jobs in the dead-letter table
 * @param deadLast24h           of those, how many died in the last 24 hours
 * @param pickupP50Millis       median time from due to claimed, first attempts of the last 5 minutes (null: none)
 * @param pickupP99Millis       its 99th percentile (null: none)
 */
public record QueueStats(String queue, String kind, long scheduled, long ready, long running, long overdue,
                         double oldestReadyAgeSeconds, long completedLastMinute, long failedLastMinute, long dead,
                         long deadLast24h, Double pickupP50Millis, Double pickupP99Millis) {

    /**
     * The backlog as autoscalers read it: jobs a worker could claim now, {@code ready + overdue}. The
     * SQL function {@code queue_backlog(queue)} and the gauge {@code docket_queue_backlog} give the
     * same figure per queue.
     */
    public long backlog() {
        return ready + overdue;
    }
}
