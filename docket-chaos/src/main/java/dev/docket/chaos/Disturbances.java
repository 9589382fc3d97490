package dev.docket.chaos;

import java.util.concurrent.TimeUnit;

/**
 * When a run's disturbances happen: a SIGKILL every {@code --kill-every}, the zombie at a quarter of
 * the run, the scenario's disruption (restart, failover, cut) at half, and for a cut the jobs slow on
 * the host to be cut two seconds before it. A scenario with a planned disruption as well (Patroni's
 * switchover) has it at a third of the run and its disruption at two thirds. One event runs at a time,
 * in that order of precedence, each when due.
 */
final class Disturbances {

    /** One disturbance. */
    interface Action {
        void run() throws Exception;
    }

    private final ChaosOptions o;
    private final WorkerFleet fleet;
    private final Action longJobs;
    private final Action planned;
    private final Action disruption;
    private long nextKill;
    private long plannedAt;
    private long zombieAt;
    private long longJobsAt;
    private long disruptAt;

    /** {@code planned} is null for a scenario without a planned disruption. */
    Disturbances(ChaosOptions o, long started, WorkerFleet fleet, Action longJobs, Action planned, Action disruption) {
        this.o = o;
        this.fleet = fleet;
        this.longJobs = longJobs;
        this.planned = planned;
        this.disruption = disruption;
        long runNanos = o.duration().toNanos();
        this.nextKill = started + o.killEvery().toNanos();
        this.zombieAt = o.zombie() ? started + runNanos / 4 : Long.MAX_VALUE;
        this.plannedAt = o.disrupt() && planned != null ? started + runNanos / 3 : Long.MAX_VALUE;
        this.disruptAt = !o.disrupt() ? Long.MAX_VALUE : started + (planned != null ? runNanos * 2 / 3 : runNanos / 2);
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
        } else if (now >= plannedAt) {
            plannedAt = Long.MAX_VALUE;
            planned.run();
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
