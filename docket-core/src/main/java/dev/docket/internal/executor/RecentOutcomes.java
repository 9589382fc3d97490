package dev.docket.internal.executor;

import dev.docket.internal.db.Outcome;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The attempts a worker finished in the last minute, for its registry row: a ring of one-second slots
 * on this JVM's monotonic clock (a rate over a minute needs no database clock). Finished means the
 * outcome was written and ended the attempt: completed, or failed (retried later or dead); a snooze
 * or a release ends no attempt. One short lock per outcome, never contended beyond the completer
 * and the registry's read once per heartbeat.
 */
public final class RecentOutcomes {

    /** How many attempts finished, and how many of those failed, in the last minute. */
    public record LastMinute(long finished, long failed) {
    }

    private static final int SLOTS = 60;
    private static final long SLOT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier nanoClock;
    /** The second each slot counts (monotonic seconds); a slot of an older second counts nothing. */
    private final long[] second = new long[SLOTS];
    private final long[] finished = new long[SLOTS];
    private final long[] failed = new long[SLOTS];

    public RecentOutcomes() {
        this(System::nanoTime);
    }

    RecentOutcomes(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        Arrays.fill(second, Long.MIN_VALUE);
    }

    /** Counts a written outcome. */
    public void written(Outcome outcome) {
        boolean failure = outcome instanceof Outcome.Retry || outcome instanceof Outcome.Dead;
        if (!failure && !(outcome instanceof Outcome.Completed)) {
            return;
        }
        long now = Math.floorDiv(nanoClock.getAsLong(), SLOT_NANOS);
        int slot = (int) Math.floorMod(now, SLOTS);
        synchronized (this) {
            if (second[slot] != now) {
                second[slot] = now;
                finished[slot] = 0;
                failed[slot] = 0;
            }
            finished[slot]++;
            if (failure) {
                failed[slot]++;
            }
        }
    }

    /** The counts of the last 60 one-second slots, the current one included. */
    public synchronized LastMinute lastMinute() {
        long now = Math.floorDiv(nanoClock.getAsLong(), SLOT_NANOS);
        long f = 0;
        long x = 0;
        for (int i = 0; i < SLOTS; i++) {
            if (second[i] > now - SLOTS) {
                f += finished[i];
                x += failed[i];
            }
        }
        return new LastMinute(f, x);
    }
}
