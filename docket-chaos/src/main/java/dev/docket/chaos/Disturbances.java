package dev.docket.chaos;

import java.util.concurrent.TimeUnit;

/**
 * When a run's disturbances happen: a SIGKILL every {@code --kill-every}, the zombie at a quarter of
 * the run, the scenario's disruption (restart, failover, cut) at half, and for a cut the jobs slow on
 * the host to be cut two seconds before it. One event runs at a time, in that order of precedence, each when due.
 */
final class Disturbances {

    /** One disturbance. */
    interface Action {
        void run() throws Exception;
    }

    private final ChaosOptions o;
    private final WorkerFleet fleet;
    private final Action longJobs;
    private final Action disruption;
    private long nextKill;
    private long zombieAt;
    private long longJobsAt;
    private long disruptAt;

    Disturbances(ChaosOptions o, long started, WorkerFleet fleet, Action longJobs, Action disruption) {
        this.o = o;
        this.fleet = fleet;
        this.longJobs = longJobs;
        this.disruption = disruption;
        long runNanos = o.duration().toNanos();
        this.nextKill = started + o.killEvery().toNanos();
        this.zombieAt = o.zombie() ? started + runNanos / 4 : Long.MAX_VALUE;
        this.disruptAt = o.disrupt() ? started + runNanos / 2 : Long.MAX_VALUE;
        this.longJobsAt = o.longJobs() > 0 && o.disrupt() ? disruptAt - TimeUnit.SECONDS.toNanos(2) : Long.MAX_VALUE;
    }

    /** Runs the first disturbance due at {@code now}, if any; returns whether one ran. */
    boolean runDue(long now) throws Exception {
        if (now >= nextKill) {
            fleet.killOne();
            nextKill = System.nanoTime() + o.killEvery().toNanos();
        } else if (now >= zombieAt) {
            zombieAt = Long.MAX_VALUE;
            fleet.zombie();
        } else if (now >= longJobsAt) {
            longJobsAt = Long.MAX_VALUE;
            longJobs.run();
        } else if (now >= disruptAt) {
            disruptAt = Long.MAX_VALUE;
            disruption.run();
        } else {
            return false;
        }
        return true;
    }

    /**
     * After the last enqueue: runs the next one-off disturbance that a long stall pushed past the end
     * (kills stop here); returns false when none is left.
     */
    boolean runOverdue() throws Exception {
        nextKill = Long.MAX_VALUE;
        return runDue(Long.MAX_VALUE - 1);
    }
}
