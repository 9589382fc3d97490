package dev.docket.internal.producer;

import java.time.Duration;

/**
 * How many claimed jobs a producer holds beyond its free slots: as many as its slots start within
 * {@link #HORIZON} at the handlers' measured running time, at most its limit, and none until a handler
 * has run. Long jobs are therefore never claimed ahead (no worker hoards a queue), and a higher-priority
 * job that arrives waits behind at most that much work.
 *
 * <p>The target moves while handlers run, between any two reads: a producer must read it once per claim
 * and judge that claim by what it asked for then (see {@link Producer}).
 */
class ClaimAhead {

    /** Jobs are claimed ahead only as many as the free slots start within this, at the measured running time. */
    static final Duration HORIZON = Duration.ofMillis(50);
    private static final double HORIZON_NANOS = HORIZON.toNanos();
    /** Weight of the newest handler's running time in the moving average. */
    private static final double RUN_TIME_WEIGHT = 0.05;

    private final int concurrency;
    private final int limit;
    /** The handlers' running time, a moving average; NaN until one has run. */
    private volatile double runNanos = Double.NaN;

    /**
     * @param concurrency the producer's slots
     * @param limit       the most jobs held ahead ({@code claimAhead}); 0 turns claiming ahead off
     */
    ClaimAhead(int concurrency, int limit) {
        this.concurrency = concurrency;
        this.limit = limit;
    }

    /** How many jobs to hold ahead now. */
    int target() {
        double run = runNanos;
        if (limit == 0 || Double.isNaN(run)) {
            return 0;
        }
        return (int) Math.min(limit, concurrency * HORIZON_NANOS / Math.max(run, 1));
    }

    /** A handler returned after running this long; called from the handlers' threads. */
    void handlerRan(long nanos) {
        double run = runNanos;
        runNanos = Double.isNaN(run) ? nanos : run + RUN_TIME_WEIGHT * (nanos - run);
    }

}
