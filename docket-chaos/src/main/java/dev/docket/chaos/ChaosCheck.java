package dev.docket.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The checks every chaos run ends with, read from the database after the queue drained: jobs lost,
 * completed twice, duplicate executions each explained by a disturbance, poison jobs dead, and the
 * time from each lost lease (a SIGKILL, a cut host) to the job's next claim, as the database
 * recorded it (the next attempt's {@code attempted_at}, or its first ledger row).
 *
 * @param options  the run's options
 * @param db       the harness's pool on the database the workers used
 * @param fleet    the worker JVMs, and what was done to each
 * @param outages  the outages of the database's disruptions, in order (a planned one first); none when there was none
 */
record ChaosCheck(ChaosOptions options, DataSource db, WorkerFleet fleet, List<Outage> outages) {

    private static final String S = ChaosHarness.SCHEMA;
    /** The metadata tag that ties the last batch's jobs to their callback (one value per enqueued batch). */
    static final String BATCH_TAG = "chaos.batch";
    /** The name of the schedule the harness stores at run time, beside the code-declared {@code tick}. */
    static final String RUNTIME_SCHEDULE = "runtime-tick";

    /** The re-claim bound: a lease, one maintenance interval (the rescuer's), and 2 s for a producer to claim. */
    Duration bound() {
        return options.lease().plusMillis(200).plusSeconds(2);
    }

    /**
     * The bound of one re-claim: {@link #bound()}, plus each database outage that fell in between,
     * plus a leader failover (the dead leader's lease, half the job lease in {@link ChaosWorker}, and
     * one election round, a third of that) for each new maintenance leader elected in between: the
     * rescue cannot run without the database, nor without a leader.
     */
    Duration bound(Instant from, Instant to, LeaderLog leaders) {
        Duration leaderLease = options.lease().dividedBy(2);
        Duration b = bound().plus(leaderLease.plus(leaderLease.dividedBy(3))
                .multipliedBy(leaders.changesBetween(from, to)));
        for (Outage outage : outages) {
            if (outage.overlaps(from, to)) {
                b = b.plus(outage.length());
            }
        }
        return b;
    }

    ChaosReport run(List<Long> enqueued, Set<Long> lostToFailover, LeaderLog leaders) throws SQLException {
        ChaosReport r = new ChaosReport(options.poison());
        r.enqueued = enqueued.size();
        r.bound = bound();
        Set<Long> completed = new HashSet<>();
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT id, count(*) FROM " + S
                    + ".job_history WHERE state = 'completed' GROUP BY id")) {
                while (rs.next()) {
                    completed.add(rs.getLong(1));
                    if (rs.getLong(2) > 1) {
                        r.doubleCompletions++;
                    }
                }
            }
            Set<Long> dead = new HashSet<>();
            try (ResultSet rs = st.executeQuery("SELECT id, kind FROM " + S + ".dead_jobs")) {
                while (rs.next()) {
                    dead.add(rs.getLong(1));
                    if ("poison".equals(rs.getString(2))) {
                        r.poisonDead++;
                    } else {
                        r.unexpectedDead++;
                    }
                    if (completed.contains(rs.getLong(1))) {
                        r.doubleCompletions++;
                    }
                }
            }
            for (long id : enqueued) {
                if (!completed.contains(id) && !dead.contains(id)) {
                    if (lostToFailover.contains(id)) {
                        r.lostToFailover++;
                    } else {
                        r.lost++;
                    }
                }
            }
            r.completed = completed.size();
            explainDuplicates(st, r);
            cron(st, r);
            batchCallbacks(st, r);
        }
        SequenceChaos.report(SequenceChaos.check(db, fleet::disturbance), r);
        for (WorkerFleet.Loss loss : fleet.losses()) {
            reclaims(loss, r, leaders);
        }
        r.kills = fleet.losses().size();
        return r;
    }

    private void explainDuplicates(Statement st, ChaosReport r) throws SQLException {
        Map<Long, List<Execution>> executions = new HashMap<>();
        try (ResultSet rs = st.executeQuery("SELECT l.job_id, l.attempt, l.worker, l.at, "
                + "(l.attempt = 1 AND coalesce((h.payload->>'failFirst')::boolean, false)) AS planned, "
                + "l.attempt = h.attempt AS completing "
                + "FROM " + S + ".ledger l LEFT JOIN " + S + ".job_history h ON h.id = l.job_id ORDER BY l.job_id, l.at")) {
            while (rs.next()) {
                executions.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(new Execution(rs.getLong(1), rs.getInt(2),
                        rs.getString(3), rs.getObject(4, OffsetDateTime.class).toInstant(), rs.getBoolean(5),
                        rs.getBoolean(6)));
            }
        }
        for (List<Execution> runs : executions.values()) {
            r.executions += runs.size();
            if (runs.size() > 1) {
                r.duplicated++;
                // Every execution but the one that completed the job (the last of its attempt, else the last) must
                // have been cut short by something the harness did. A zombie may run a job it claimed before its
                // stall after the attempt that completed it: that late execution is the one to explain.
                Execution completing = runs.reversed().stream().filter(Execution::completing).findFirst()
                        .orElse(runs.getLast());
                for (Execution run : runs.stream().filter(run -> run != completing).toList()) {
                    String disturbance = fleet.disturbance(run.worker());
                    if (run.planned()) {
                        r.explained.merge("failed on purpose", 1, Integer::sum);
                    } else if (disturbance != null) {
                        r.explained.merge(disturbance.replaceAll(".*?(killed|stalled|crashed|partitioned).*", "$1"),
                                1, Integer::sum);
                    } else if (outageAround(run.at()) instanceof Outage outage) {
                        r.explained.merge(outage.what(), 1, Integer::sum);
                    } else {
                        r.unexplained++;
                        System.out.printf(Locale.ROOT, "chaos: unexplained: job %d attempt %d on %s at %s%n",
                                run.job(), run.attempt(), run.worker(), run.at());
                    }
                }
            }
        }
    }

    private record Execution(long job, int attempt, String worker, Instant at, boolean planned, boolean completing) {
    }

    /** The outage, if any, close enough to an execution's start that it may have cost it its lease or claim. */
    private Outage outageAround(Instant executionStart) {
        return outages.stream().filter(o -> o.overlaps(executionStart.minusSeconds(1),
                executionStart.plus(options.lease()).plusSeconds(1))).findFirst().orElse(null);
    }

    /**
     * The last batch's callback: completed exactly once (one job, settled once, whatever was killed), and
     * first run only after the last of its batch's jobs had finished (its ledger row against their
     * finish times, both from the database clock).
     */
    private void batchCallbacks(Statement st, ChaosReport r) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT count(*) AS callbacks,"
                + " count(*) FILTER (WHERE c.state = 'completed') AS completed,"
                + " count(*) FILTER (WHERE (SELECT min(l.at) FROM " + S + ".ledger l WHERE l.job_id = c.id)"
                + "   >= (SELECT max(h.finished_at) FROM " + S + ".job_history h WHERE h.kind <> 'chaos_batch_done'"
                + "       AND h.metadata ->> '" + BATCH_TAG + "' = c.metadata ->> '" + BATCH_TAG + "')) AS in_order,"
                + " coalesce(sum((SELECT count(*) FROM " + S + ".ledger l WHERE l.job_id = c.id)), 0) AS runs"
                + " FROM (SELECT id, state, metadata FROM " + S + ".job_history WHERE kind = 'chaos_batch_done'"
                + "       UNION ALL SELECT id, 'dead', metadata FROM " + S + ".dead_jobs WHERE kind = 'chaos_batch_done'"
                + "       UNION ALL SELECT id, state, metadata FROM " + S + ".jobs WHERE kind = 'chaos_batch_done') c")) {
            rs.next();
            long callbacks = rs.getLong("callbacks");
            r.figure("batch callbacks completed once, after their batch",
                    rs.getLong("completed") + " of " + callbacks + ", " + rs.getLong("in_order") + " in order ("
                            + rs.getLong("runs") + " executions)",
                    callbacks >= 1 && rs.getLong("completed") == callbacks && rs.getLong("in_order") == callbacks);
        }
    }

    /** The cron ticks: one job per slot however leadership moved (their unique key is the slot). */
    private void cron(Statement st, ChaosReport r) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT count(*), count(*) - count(DISTINCT unique_key) FROM " + S
                + ".job_history WHERE kind = 'tick'")) {
            rs.next();
            r.figure("cron ticks completed, duplicate slots", rs.getLong(1) + ", " + rs.getLong(2),
                    rs.getLong(1) > 0 && rs.getLong(2) == 0);
        }
        runtimeSchedule(st, r);
        for (Outage outage : outages) {
            try (PreparedStatement ps = st.getConnection().prepareStatement("SELECT count(*) FROM " + S
                    + ".job_history WHERE kind = 'tick' AND attempted_at > ?")) {
                ps.setObject(1, OffsetDateTime.ofInstant(outage.end(), java.time.ZoneOffset.UTC));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    r.figure("cron ticks after the " + outage.what(), Long.toString(rs.getLong(1)),
                            rs.getLong(1) > 0);
                }
            }
        }
    }

    /**
     * The schedule stored at run time (every second, like the code-declared tick): one job per slot, and no slot
     * missed between its first and its last, wherever the job is now, however often the leader was killed.
     */
    private void runtimeSchedule(Statement st, ChaosReport r) throws SQLException {
        String slots = ("SELECT split_part(unique_key, ':', 3)::bigint AS slot FROM %1$s.jobs WHERE unique_key LIKE '%2$s'"
                + " UNION ALL SELECT split_part(unique_key, ':', 3)::bigint FROM %1$s.job_history WHERE unique_key LIKE '%2$s'"
                + " UNION ALL SELECT split_part(unique_key, ':', 3)::bigint FROM %1$s.dead_jobs WHERE unique_key LIKE '%2$s'")
                .formatted(S, "cron:" + RUNTIME_SCHEDULE + ":%");
        try (ResultSet rs = st.executeQuery("SELECT count(*), count(*) - count(DISTINCT slot), "
                + "coalesce(max(slot) - min(slot) + 1 - count(DISTINCT slot), 0) FROM (" + slots + ") s")) {
            rs.next();
            r.figure("runtime schedule: slots enqueued, duplicate slots", rs.getLong(1) + ", " + rs.getLong(2),
                    rs.getLong(1) > 0 && rs.getLong(2) == 0);
            r.figure("runtime schedule: slots missed between the first and the last", Long.toString(rs.getLong(3)),
                    rs.getLong(3) == 0);
        }
        if (options.scenario() == ChaosOptions.Scenario.CLASSIC) {
            r.figure("runtime schedule: maintenance leaders killed", Integer.toString(fleet.leadersKilled()),
                    fleet.leadersKilled() >= 2);
        }
    }

    /**
     * The transactional handlers' exactly-once check: every completed {@code counter} job counted exactly
     * once, and no counter left by an attempt that did not complete its job (rolled back with it); and the
     * attempts fenced out at their commit, as the workers logged them.
     */
    void transactional(ChaosReport r, long fencedOut) throws SQLException {
        long completed = Sql.count(db, "SELECT count(*) FROM " + S + ".job_history WHERE kind = 'counter' AND state = 'completed'");
        long wrong = Sql.count(db, """
                SELECT count(*) FROM %1$s.job_history h LEFT JOIN %1$s.counters c ON c.job_id = h.id
                 WHERE h.kind = 'counter' AND h.state = 'completed' AND c.n IS DISTINCT FROM 1""".formatted(S))
                + Sql.count(db, """
                SELECT count(*) FROM %1$s.counters c WHERE NOT EXISTS (SELECT 1 FROM %1$s.job_history h
                 WHERE h.id = c.job_id AND h.kind = 'counter' AND h.state = 'completed')""".formatted(S));
        r.transactionalCompleted = completed;
        r.countersWrong = wrong;
        r.fencedOut = fencedOut;
        r.figure("transactional jobs completed, counters not exactly 1", completed + ", " + wrong, wrong == 0);
        r.figure("transactional attempts fenced out at commit", Long.toString(fencedOut), true);
    }

    /**
     * When each job of {@code loss} was claimed again, as the database recorded it: the earliest of what
     * each proves, all no earlier than the claim: the next attempt's start as its row keeps it, the first
     * run of a later attempt in the ledger or in {@code signal_waits}, and, when that attempt never ran
     * because its own worker died holding it unstarted (a poison job halts a worker the harness did not
     * kill, and its claimed-ahead jobs leave no trace), its rescue less one lease, the latest it can have
     * been claimed (a claim sets the lease, heartbeats only extend it). The row alone is not enough: a
     * waiter whose handler asked for a signal gave its attempt back, and the row keeps the start of the run
     * that resumed it, after the signal came, not of the claim. A job whose held
     * attempt itself finished before that attempt's lease ran out was not lost: its outcome was already
     * on its way to the server when the process was killed or the host cut (the harness reads what a
     * worker holds just after the blow), and no later attempt is owed.
     */
    private void reclaims(WorkerFleet.Loss loss, ChaosReport r, LeaderLog leaders) throws SQLException {
        List<Long> ids = new ArrayList<>(loss.held().keySet());
        long max = -1;
        int inFlight = 0;
        List<Long> overBound = new ArrayList<>();
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT f.id, least(
                         (SELECT min(h.attempted_at) FROM %1$s.job_history h WHERE h.id = f.id AND h.attempt = f.attempt + 1),
                         (SELECT d.attempted_at FROM %1$s.dead_jobs d WHERE d.id = f.id AND d.attempt = f.attempt + 1),
                         (SELECT min(l.at) FROM %1$s.ledger l WHERE l.job_id = f.id AND l.attempt > f.attempt),
                         (SELECT min(w.at) FROM %1$s.signal_waits w WHERE w.job_id = f.id AND w.attempt > f.attempt),
                         (SELECT min((e->>'at')::timestamptz) - ?::interval
                            FROM (SELECT errors FROM %1$s.jobs WHERE id = f.id
                                  UNION ALL SELECT errors FROM %1$s.job_history WHERE id = f.id
                                  UNION ALL SELECT errors FROM %1$s.dead_jobs WHERE id = f.id) j,
                                 jsonb_array_elements(j.errors) e
                           WHERE (e->>'attempt')::int = f.attempt + 1 AND e->>'error' LIKE 'lease expired%%')) AS at,
                       coalesce(
                         (SELECT min(h.finished_at) FROM %1$s.job_history h WHERE h.id = f.id AND h.attempt = f.attempt),
                         (SELECT d.died_at FROM %1$s.dead_jobs d WHERE d.id = f.id AND d.attempt = f.attempt)) AS own,
                       (SELECT min(l.at) FROM %1$s.ledger l WHERE l.job_id = f.id AND l.attempt = f.attempt) AS started
                  FROM unnest(?::bigint[], ?::int[]) AS f(id, attempt)""".formatted(S))) {
            ps.setString(1, options.lease().toMillis() + " milliseconds");
            ps.setArray(2, c.createArrayOf("bigint", ids.toArray()));
            ps.setArray(3, c.createArrayOf("int4", ids.stream().map(loss.held()::get).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    OffsetDateTime at = rs.getObject(2, OffsetDateTime.class);
                    OffsetDateTime own = rs.getObject(3, OffsetDateTime.class);
                    OffsetDateTime started = rs.getObject(4, OffsetDateTime.class);
                    if (at != null) {
                        long ms = Duration.between(loss.at(), at.toInstant()).toMillis();
                        long bound = bound(loss.at(), at.toInstant(), leaders).toMillis();
                        r.reclaimed(ms, bound);
                        max = Math.max(max, ms);
                        if (ms > bound) {
                            overBound.add(rs.getLong(1));
                        }
                    } else if (own != null && own.toInstant().isBefore(loss.at().plus(options.lease()))) {
                        inFlight++;
                    } else {
                        r.neverReclaimed++;
                        System.out.printf(Locale.ROOT, "chaos: job %d (attempt %d, started %s) lost by %s was never"
                                + " claimed again; its own attempt finished %s%n", rs.getLong(1),
                                loss.held().get(rs.getLong(1)), started, loss.what(), own == null ? "never" : own);
                    }
                }
            }
        }
        r.finishedInFlight += inFlight;
        describe(overBound, loss);
        System.out.printf(Locale.ROOT, "chaos: %s holding %d jobs; last re-claimed after %s ms%s%n", loss.what(),
                ids.size(), max < 0 ? "-" : Long.toString(max),
                inFlight > 0 ? "; " + inFlight + " finished by their holder (outcome in flight)" : "");
    }

    /**
     * Prints what the database knows of each job re-claimed later than its bound: its kind, attempts, key and
     * errors (a rescue writes "lease expired" with its time), and when its next attempt started.
     */
    private void describe(List<Long> jobs, WorkerFleet.Loss loss) throws SQLException {
        if (jobs.isEmpty()) {
            return;
        }
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT id, kind, attempt, sequence_key, attempted_at, errors::text FROM %1$s.job_history WHERE id = ANY (?)
                UNION ALL SELECT id, kind, attempt, sequence_key, attempted_at, errors::text FROM %1$s.dead_jobs WHERE id = ANY (?)
                UNION ALL SELECT id, kind, attempt, sequence_key, attempted_at, errors::text FROM %1$s.jobs WHERE id = ANY (?)
                """.formatted(S))) {
            for (int i = 1; i <= 3; i++) {
                ps.setArray(i, c.createArrayOf("bigint", jobs.toArray()));
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    System.out.printf(Locale.ROOT, "chaos: re-claimed over its bound after %s: job %d %s attempt %d key %s"
                                    + " last started %s errors %s%n", loss.what(), rs.getLong(1), rs.getString(2), rs.getInt(3),
                            rs.getString(4), rs.getObject(5, OffsetDateTime.class), rs.getString(6));
                }
            }
        }
    }

    /** Listener connections ({@code chaos-listener-*}) that are LISTENing now, and the leaders with a live lease. */
    void liveServices(ChaosReport r, int workersAlive) throws SQLException {
        long listeners = Sql.count(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'chaos-listener-%' "
                + "AND (query LIKE 'LISTEN%' OR query = 'SELECT 1')");
        r.figure("workers listening at the end", listeners + " of " + workersAlive, listeners >= workersAlive);
        long leaders = Sql.count(db, "SELECT count(*) FROM " + S + ".leaders WHERE expires_at > now()");
        r.figure("maintenance leaders at the end", Long.toString(leaders), leaders == 1);
    }

    /**
     * Whether each of {@code workers} started a job again after {@code since} without a restart (one the
     * harness killed, or a poison job halted, before it could is excused), and how long after {@code from}
     * the slowest did: at most {@code bound}.
     */
    void resumed(ChaosReport r, String what, Collection<String> workers, Instant since, Instant from, Duration bound)
            throws SQLException {
        Map<String, Instant> first = firstExecutions(workers, since);
        long slowest = first.values().stream().mapToLong(t -> Duration.between(from, t).toMillis()).max().orElse(-1);
        long gone = workers.stream().filter(w -> !first.containsKey(w))
                .filter(w -> fleet.disturbance(w) != null && fleet.disturbance(w).matches(".*(killed|crashed).*")).count();
        r.figure(what + " working again (no restart)", first.size() + " of " + workers.size()
                + (gone > 0 ? " (" + gone + " died first)" : ""), first.size() + gone == workers.size() && !first.isEmpty());
        r.figure("  ... the last after", slowest + " ms (bound " + bound.toMillis() + " ms)",
                slowest >= 0 && slowest <= bound.toMillis());
    }

    /** The first execution each of {@code workers} started after {@code since}; none for one that started none. */
    private Map<String, Instant> firstExecutions(Collection<String> workers, Instant since) throws SQLException {
        Map<String, Instant> first = new HashMap<>();
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT worker, min(at) FROM "
                + S + ".ledger WHERE worker = ANY (?) AND at > ? GROUP BY worker")) {
            ps.setArray(1, c.createArrayOf("text", workers.toArray()));
            ps.setObject(2, OffsetDateTime.ofInstant(since, java.time.ZoneOffset.UTC));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    first.put(rs.getString(1), rs.getObject(2, OffsetDateTime.class).toInstant());
                }
            }
        }
        return first;
    }
}
