package dev.docket;

import java.time.Instant;
import java.util.Optional;

/**
 * One slot a schedule enqueued ({@link DocketAdmin#scheduleRuns}): the 20 newest are kept per schedule.
 *
 * @param slot       the slot's time
 * @param jobId      the job enqueued for it (see {@link Docket#job(long)})
 * @param enqueuedAt when the leader enqueued it
 * @param state      where the job is now; empty once it left the history (retention) or was discarded
 */
public record ScheduleRun(Instant slot, long jobId, Instant enqueuedAt, Optional<JobState> state) {
}
