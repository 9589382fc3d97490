package dev.docket;

import dev.docket.internal.db.Database;
import dev.docket.internal.doctor.Doctor;
import dev.docket.internal.doctor.JobExplainer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Operations on the queue as a whole: listings, statistics and replay from the dead-letter table.
 * Get it with {@link Docket#admin()}. Listings never read payloads; use {@link Docket#job(long)}
 * for one job's payload.
 */
public final class DocketAdmin {

    private final Database store;
    private final String schema;
    private final Duration historyRetention;

    DocketAdmin(Database store, String schema, Duration historyRetention) {
        this.store = store;
        this.schema = schema;
        this.historyRetention = historyRetention;
    }

    /** One page of jobs, wherever they live, newest first. */
    public List<JobSummary> jobs(JobQuery query) {
        Objects.requireNonNull(query, "query");
        return call("listing jobs", () -> store.jobs().list(query.state(), query.queue(), query.kind(), query.before(),
                query.limit()));
    }

    /** One page of the dead-letter table, newest first. */
    public List<JobSummary> deadJobs(DeadJobQuery query) {
        Objects.requireNonNull(query, "query");
        return call("listing dead jobs", () -> store.deadJobs().list(query.kind(), query.errorContains(), query.before(),
                query.limit()));
    }

    /**
     * The dead-letter table grouped by kind and error (the first line of each job's last error),
     * largest groups first, at most {@code limit} (1 to 1000) groups; {@code kind} null for all.
     */
    public List<DeadJobGroup> deadJobGroups(String kind, int limit) {
        if (kind != null) {
            Docket.checkKind(kind);
        }
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be between 1 and 1000, was " + limit);
        }
        return call("grouping dead jobs", () -> store.deadJobs().groups(kind, limit));
    }

    /**
     * Puts dead jobs back to ready with a fresh attempt budget; their error history is kept. A dead
     * job whose unique key a live job holds now stays dead (replaying it would run it twice).
     *
     * @return the ids that were replayed (unknown ids and held unique keys are left out)
     */
    public List<Long> replayDead(Collection<Long> ids) {
        Objects.requireNonNull(ids, "ids");
        return call("replaying dead jobs", () -> store.deadJobs().replay(List.copyOf(ids)));
    }

    /**
     * Retries a job now: a dead job is replayed (see {@link #replayDead}); a scheduled one (in the
     * future, or waiting out a backoff) becomes ready at once.
     *
     * @return false if the job is neither dead nor scheduled
     */
    public boolean retry(long id) {
        return call("retrying job " + id, () -> !store.deadJobs().replay(List.of(id)).isEmpty() || store.jobs().runNow(id));
    }

    /** The most jobs one replay may look at. */
    public static final int MAX_REPLAY = 1_000_000;
    /** The highest replay rate, jobs per second. */
    public static final double MAX_REPLAY_RATE = 100_000;

    /**
     * Starts replaying the dead jobs that match {@code filter} (its kind, error text and {@code before};
     * its page size is not used), newest first, at no more than {@code ratePerSecond}, at most {@code max}
     * of them. The cluster's maintenance leader carries it out a turn per maintenance round, so a worker
     * with maintenance on must be running; its progress is kept in the database
     * ({@link #replay(long)}), so it survives a restart of this node and a change of leader. Jobs that die
     * while it runs may be replayed by it too. A replay of nothing is {@link DeadJobReplay.State#DONE} at once.
     *
     * @param ratePerSecond more than 0 and at most {@link #MAX_REPLAY_RATE}; fractions are fine (0.5: one job every 2 s)
     * @param max           1 to {@link #MAX_REPLAY}
     */
    public DeadJobReplay startReplay(DeadJobQuery filter, double ratePerSecond, int max) {
        Objects.requireNonNull(filter, "filter");
        if (!(ratePerSecond > 0 && ratePerSecond <= MAX_REPLAY_RATE)) {
            throw new IllegalArgumentException("ratePerSecond must be more than 0 and at most " + (long) MAX_REPLAY_RATE
                    + ", was " + ratePerSecond);
        }
        if (max < 1 || max > MAX_REPLAY) {
            throw new IllegalArgumentException("max must be between 1 and " + MAX_REPLAY + ", was " + max);
        }
        return call("starting a dead-letter replay", () -> store.deadJobReplays().start(filter.kind(), filter.errorContains(),
                filter.before(), ratePerSecond, max));
    }

    /** A replay started with {@link #startReplay}, as far as it has got; empty once pruned (7 days after it finished). */
    public Optional<DeadJobReplay> replay(long id) {
        return call("reading dead-letter replay " + id, () -> store.deadJobReplays().find(id));
    }

    /** The replays still running and those finished in the last 7 days, newest first, at most 100. */
    public List<DeadJobReplay> replays() {
        return call("listing dead-letter replays", () -> store.deadJobReplays().list(100));
    }

    /**
     * Pauses a queue on every worker of the cluster: it is not claimed from the next claim on;
     * jobs already running finish. Enqueueing into it still works.
     */
    public void pauseQueue(String queue) {
        JobOptions.builder().queue(queue);
        call("pausing queue " + queue, () -> {
            store.queues().setPaused(queue, true);
            return null;
        });
    }

    /** Resumes a paused queue; idle workers are woken at once. */
    public void resumeQueue(String queue) {
        JobOptions.builder().queue(queue);
        call("resuming queue " + queue, () -> {
            store.queues().setPaused(queue, false);
            return null;
        });
    }

    /**
     * Caps how many of a queue's jobs run at once across the cluster ({@code maxRunning}), and how many
     * of one tenant's ({@code tenantMaxRunning}); null removes a cap. Workers apply it within a second.
     * With a tenant cap, one tenant flooding the queue leaves the others' lag unchanged.
     */
    public void setQueueLimits(String queue, Integer maxRunning, Integer tenantMaxRunning) {
        JobOptions.builder().queue(queue);
        if (maxRunning != null && maxRunning < 0) {
            throw new IllegalArgumentException("maxRunning must be >= 0, was " + maxRunning);
        }
        if (tenantMaxRunning != null && tenantMaxRunning < 1) {
            throw new IllegalArgumentException("tenantMaxRunning must be >= 1, was " + tenantMaxRunning);
        }
        call("setting limits of queue " + queue, () -> {
            store.queues().setLimits(queue, maxRunning, tenantMaxRunning);
            return null;
        });
    }

    /** The queues that have settings of their own (paused, or capped); others have the defaults. */
    public List<QueueSettings> queues() {
        return call("listing queues", store.queues()::list);
    }

    /** Running jobs per queue and tenant, across the cluster: who is using a queue's capacity now. */
    public List<TenantRunning> runningByTenant() {
        return call("counting running jobs per tenant", store.stats()::runningByTenant);
    }

    /** Statistics per queue and kind, for the whole cluster; see {@link QueueStats}. */
    public List<QueueStats> stats() {
        return call("computing statistics", store.stats()::stats);
    }

    /**
     * Every registered worker, oldest first: live ones, and for an hour those whose heartbeats stopped
     * ({@link WorkerInfo#live()} false). A worker that stopped gracefully is gone at once.
     */
    public List<WorkerInfo> workers() {
        return call("listing workers", store.workers()::list);
    }

    /** Runs every check of {@link #doctor(DoctorOptions)} with {@link DoctorOptions#defaults()}. */
    public DoctorReport doctor() {
        return doctor(DoctorOptions.defaults());
    }

    /**
     * The runbook as checks: vacuum debt on the jobs table, who holds the xmin horizon back (long and
     * idle-in-transaction sessions, replication slots, prepared transactions, standbys), the jobs table's
     * storage settings against the migrations', each queue's lag against its SLO, each kind's pickup p99
     * against its SLO, dead-letter growth, paused queues with a backlog, waiting jobs no live worker
     * serves, history partitions missing or overdue, the maintenance leader, and the workers (stopped
     * heartbeats, pools too small, listeners down, stalled services). Each finding has a cause, evidence
     * and a fix; see {@link DoctorReport}. Read-only. The horizon checks read {@code pg_stat_activity}:
     * run it as a role with {@code pg_monitor}, or sessions of other roles stay invisible.
     */
    public DoctorReport doctor(DoctorOptions options) {
        Objects.requireNonNull(options, "options");
        return call("running doctor", () -> new Doctor(store, schema, historyRetention).run(options));
    }

    /**
     * Why the job is not running (or what it is doing), computed from the database now; see
     * {@link JobExplanation.Code} for every answer. Empty when no job has the id (or it was pruned).
     */
    public Optional<JobExplanation> explain(long id) {
        return call("explaining job " + id, () -> new JobExplainer(store).explain(id));
    }

    /** The longest SLO objective that may be set: 30 days. */
    public static final Duration MAX_SLO = Duration.ofDays(30);

    /**
     * Sets the lag objective of {@code queue} (how long its oldest ready job may wait), or clears it
     * with null. The queue need not exist yet. Doctor compares with it; the server exports it as
     * {@code docket_queue_lag_slo_seconds{queue}}.
     *
     * @param lag more than zero and at most {@link #MAX_SLO}, or null to clear
     */
    public void setQueueLagSlo(String queue, Duration lag) {
        JobOptions.builder().queue(queue);
        checkSlo("lag", lag);
        call("setting the lag SLO of queue " + queue, () -> {
            store.slos().set(Slo.Target.QUEUE_LAG, queue, lag);
            return null;
        });
    }

    /**
     * Sets the pickup p99 objective of {@code kind} (due to claimed, first attempts), or clears it with
     * null. Doctor compares with it; the server exports it as {@code docket_kind_pickup_p99_slo_seconds{kind}}.
     *
     * @param p99 more than zero and at most {@link #MAX_SLO}, or null to clear
     */
    public void setKindPickupSlo(String kind, Duration p99) {
        Docket.checkKind(kind);
        checkSlo("pickup p99", p99);
        call("setting the pickup SLO of kind " + kind, () -> {
            store.slos().set(Slo.Target.KIND_PICKUP_P99, kind, p99);
            return null;
        });
    }

    /** Every SLO set, queue lags first, then kinds' pickup p99, each by name. */
    public List<Slo> slos() {
        return call("listing SLOs", store.slos()::list);
    }

    private static void checkSlo(String what, Duration objective) {
        if (objective != null && (objective.isNegative() || objective.isZero() || objective.compareTo(MAX_SLO) > 0)) {
            throw new IllegalArgumentException(what + " SLO must be more than 0 and at most 30 days, was " + objective);
        }
    }

    private interface Query<T> {
        T run() throws SQLException;
    }

    private static <T> T call(String what, Query<T> query) {
        try {
            return query.run();
        } catch (SQLException e) {
            throw new DocketException("docket: " + what + " failed: " + e.getMessage(), e);
        }
    }
}
