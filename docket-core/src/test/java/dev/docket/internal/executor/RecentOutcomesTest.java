package dev.docket.internal.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.internal.db.Fence;
import dev.docket.internal.db.Outcome;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The last minute's finished and failed attempts, on a clock the test moves. */
class RecentOutcomesTest {

    private static final Fence F = new Fence(1, 1);

    private final AtomicLong nanos = new AtomicLong(TimeUnit.DAYS.toNanos(3) + 123);
    private final RecentOutcomes recent = new RecentOutcomes(nanos::get);

    private void advanceSeconds(long seconds) {
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }

    @Test
    void countsAttemptsThatEndedAndOfThoseTheFailures() {
        recent.written(new Outcome.Completed(F, null));
        recent.written(new Outcome.Retry(F, 0, "x"));
        recent.written(new Outcome.Dead(F, null, "x", "y"));
        recent.written(new Outcome.Snoozed(F, 0));
        recent.written(new Outcome.Released(F, true));

        assertThat(recent.lastMinute()).isEqualTo(new RecentOutcomes.LastMinute(3, 2));
    }

    @Test
    void anOutcomeCountsForSixtySecondsThenDropsOut() {
        recent.written(new Outcome.Completed(F, null));
        advanceSeconds(30);
        recent.written(new Outcome.Retry(F, 0, "x"));
        advanceSeconds(29);
        assertThat(recent.lastMinute()).isEqualTo(new RecentOutcomes.LastMinute(2, 1));

        advanceSeconds(1);
        assertThat(recent.lastMinute()).as("the first is 60 s old").isEqualTo(new RecentOutcomes.LastMinute(1, 1));

        // The slot of second 0 is reused 60 s later and starts from zero.
        recent.written(new Outcome.Completed(F, null));
        assertThat(recent.lastMinute()).isEqualTo(new RecentOutcomes.LastMinute(2, 1));
        advanceSeconds(3600);
        assertThat(recent.lastMinute()).isEqualTo(new RecentOutcomes.LastMinute(0, 0));
    }
}
