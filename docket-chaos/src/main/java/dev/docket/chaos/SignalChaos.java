package dev.docket.chaos;

import dev.docket.Docket;
import dev.docket.JobContext;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import dev.docket.SignalDelivery;
import dev.docket.SignalTimeout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Durable waits under chaos (issue 27). Jobs of kind {@value #WAITER} are enqueued waiting for the signal
 * {@code go}; their handler then waits for {@code more} from inside (its attempt given back, no slot held)
 * and completes once that arrives. The producer sends each signal in a transaction of its own that also
 * writes a row of {@code signal_ledger}, and rolls half of those transactions back. Jobs of kind
 * {@value #TIMER} wait for a signal nobody sends and run when their wait times out (a timer the maintenance
 * leader fires, across leader kills). The checks: every committed signal ended its job's wait exactly once
 * and was read by the run that completed it; no rolled-back signal was ever stored or read; every waiter
 * completed (the harness's loss check); every timer fired once.
 */
final class SignalChaos {

    static final String WAITER = "signalled";
    static final String TIMER = "timer";
    private static final String S = ChaosHarness.SCHEMA;

    /** A waiter's or a timer's payload. */
    record Waiter(int n) {
    }

    /** A signal's payload: the token that ties it to its ledger row. */
    record Token(String token) {
    }

    /**
     * What the check found.
     *
     * @param committed      signals whose transaction committed (their ledger rows)
     * @param rolledBack     signals whose transaction was rolled back
     * @param notResumedOnce committed signals that did not end exactly one wait
     * @param leaked         rolled-back signals stored or read by a handler
     * @param misread        completing runs that read another signal than the committed one
     * @param waiters        waiter jobs completed
     * @param badWaiters     completed waiters whose metadata records other than two ended waits
     * @param timers         timer jobs completed
     * @param badTimers      completed timers whose wait did not time out exactly once, or that hold a signal
     */
    record Result(int committed, int rolledBack, int notResumedOnce, int leaked, int misread, int waiters,
                  int badWaiters, int timers, int badTimers) {
        boolean ok() {
            return notResumedOnce == 0 && leaked == 0 && misread == 0 && badWaiters == 0 && badTimers == 0;
        }
    }

    private final Random random;
    private final Set<String> rolledBack = new HashSet<>();

    SignalChaos(Random random) {
        this.random = random;
    }

    static void createTables(DataSource db) throws SQLException {
        Sql.execute(db, "CREATE TABLE " + S + ".signal_ledger (token text PRIMARY KEY, job_id bigint NOT NULL, "
                + "name text NOT NULL, delivery text NOT NULL, at timestamptz NOT NULL DEFAULT now())");
        Sql.execute(db, "CREATE TABLE " + S + ".signal_runs (job_id bigint NOT NULL, attempt int NOT NULL, "
                + "worker text NOT NULL, go text, more text)");
        Sql.execute(db, "CREATE TABLE " + S + ".signal_waits (job_id bigint NOT NULL, attempt int NOT NULL, "
                + "worker text NOT NULL, at timestamptz NOT NULL DEFAULT now())");
    }

    /** {@code waiters} jobs waiting for {@code go} and {@code timers} jobs whose wait times out in 2 to 10 s. */
    List<NewJob> jobs(int waiters, int timers) {
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            jobs.add(NewJob.of(WAITER, new Waiter(i), JobOptions.builder().awaitSignal("go").build()));
        }
        for (int i = 0; i < timers; i++) {
            jobs.add(NewJob.of(TIMER, new Waiter(i), JobOptions.builder()
                    .awaitSignal("never", Duration.ofMillis(random.nextInt(2_000, 10_000)), SignalTimeout.RUN).build()));
        }
        return jobs;
    }

    /** The waiter's handler: it completes once both signals came, recording what it read; else it waits for {@code more}. */
    static void runWaiter(DataSource db, JobContext ctx, String worker) throws Exception {
        String go = ctx.signal("go", Token.class).map(Token::token).orElse(null);
        String more = ctx.signal("more", Token.class).map(Token::token).orElse(null);
        if (more == null) {
            // Not an execution the ledger counts (the job gives its attempt back and waits), but a claim the
            // re-claim check counts: a job taken back from a killed worker is claimed again when this runs.
            ChaosWorker.record(db, "signal_waits", ctx.jobId(), ctx.attempt(), worker);
            ctx.awaitSignal("more");
            return;
        }
        ChaosWorker.record(db, "ledger", ctx.jobId(), ctx.attempt(), worker);
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO " + S
                + ".signal_runs (job_id, attempt, worker, go, more) VALUES (?, ?, ?, ?, ?)")) {
            ps.setLong(1, ctx.jobId());
            ps.setInt(2, ctx.attempt());
            ps.setString(3, worker);
            ps.setString(4, go);
            ps.setString(5, more);
            ps.executeUpdate();
        }
    }

    /** The timer's handler: one execution in the ledger, and it must find no signal. */
    static void runTimer(DataSource db, JobContext ctx, String worker) throws Exception {
        ChaosWorker.record(db, "ledger", ctx.jobId(), ctx.attempt(), worker);
        if (ctx.signal("never", Token.class).isPresent()) {
            throw new IllegalStateException("a timer found a signal nobody sent");
        }
    }

    /**
     * One pass of the producer: each waiter that waits for a signal now gets it, in a transaction that also
     * writes its ledger row, committed or (half of them) rolled back. A send whose commit failed (the database
     * went away) may have committed or not: the next pass finds the job still waiting, or not.
     */
    void signalWaiting(Docket docket, DataSource producer) {
        Map<Long, String> waiting = new HashMap<>();
        try (Connection c = producer.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, await_signal FROM " + S + ".jobs WHERE kind = '" + WAITER
                     + "' AND state = 'waiting' AND await_signal IS NOT NULL")) {
            while (rs.next()) {
                waiting.put(rs.getLong(1), rs.getString(2));
            }
        } catch (SQLException e) {
            return;
        }
        for (Map.Entry<Long, String> w : waiting.entrySet()) {
            String token = UUID.randomUUID().toString();
            boolean rollBack = random.nextBoolean();
            try (Connection tx = producer.getConnection()) {
                tx.setAutoCommit(false);
                try {
                    SignalDelivery delivery = docket.signal(tx, w.getKey(), w.getValue(), new Token(token));
                    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + S
                            + ".signal_ledger (token, job_id, name, delivery) VALUES (?, ?, ?, ?)")) {
                        ps.setString(1, token);
                        ps.setLong(2, w.getKey());
                        ps.setString(3, w.getValue());
                        ps.setString(4, delivery.name());
                        ps.executeUpdate();
                    }
                    if (rollBack) {
                        tx.rollback();
                        rolledBack.add(token);
                    } else {
                        tx.commit();
                    }
                } catch (RuntimeException | SQLException e) {
                    tx.rollback();
                }
            } catch (RuntimeException | SQLException e) {
                // The database is away: the job still waits, or the commit happened; the next pass sees which.
            }
        }
    }

    Result check(DataSource db) throws SQLException {
        int committed;
        int notResumedOnce;
        int leaked = 0;
        int misread;
        int waiters;
        int badWaiters;
        int timers;
        int badTimers;
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("""
                    SELECT count(*), count(*) FILTER (WHERE (SELECT count(*) FROM %1$s.signals s
                                                              WHERE s.job_id = l.job_id AND s.name = l.name
                                                                AND s.payload ->> 'token' = l.token
                                                                AND s.resumed_at IS NOT NULL) <> 1)
                      FROM %1$s.signal_ledger l""".formatted(S))) {
                rs.next();
                committed = rs.getInt(1);
                notResumedOnce = rs.getInt(2);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT (SELECT count(*) FROM " + S
                    + ".signals WHERE payload ->> 'token' = ANY (?)) + (SELECT count(*) FROM " + S
                    + ".signal_runs WHERE go = ANY (?) OR more = ANY (?))")) {
                java.sql.Array tokens = c.createArrayOf("text", rolledBack.toArray());
                ps.setArray(1, tokens);
                ps.setArray(2, tokens);
                ps.setArray(3, tokens);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    leaked = rs.getInt(1);
                }
            }
            try (ResultSet rs = st.executeQuery("""
                    SELECT count(*) FROM %1$s.signal_runs r
                     WHERE r.go IS DISTINCT FROM (SELECT token FROM %1$s.signal_ledger l WHERE l.job_id = r.job_id AND l.name = 'go')
                        OR r.more IS DISTINCT FROM (SELECT token FROM %1$s.signal_ledger l WHERE l.job_id = r.job_id AND l.name = 'more')
                    """.formatted(S))) {
                rs.next();
                misread = rs.getInt(1);
            }
            try (ResultSet rs = st.executeQuery("""
                    SELECT count(*) FILTER (WHERE kind = '%2$s'),
                           count(*) FILTER (WHERE kind = '%2$s' AND jsonb_array_length(coalesce(metadata -> 'docket.signals', '[]')) <> 2),
                           count(*) FILTER (WHERE kind = '%3$s'),
                           count(*) FILTER (WHERE kind = '%3$s' AND (jsonb_array_length(coalesce(metadata -> 'docket.signals', '[]')) <> 1
                                  OR NOT coalesce((metadata -> 'docket.signals' -> 0 ->> 'timedOut')::boolean, false)
                                  OR EXISTS (SELECT 1 FROM %1$s.signals s WHERE s.job_id = h.id)))
                      FROM %1$s.job_history h WHERE state = 'completed'""".formatted(S, WAITER, TIMER))) {
                rs.next();
                waiters = rs.getInt(1);
                badWaiters = rs.getInt(2);
                timers = rs.getInt(3);
                badTimers = rs.getInt(4);
            }
        }
        return new Result(committed, rolledBack.size(), notResumedOnce, leaked, misread, waiters, badWaiters, timers,
                badTimers);
    }

    /** The check as rows of a chaos report. */
    static void report(Result r, ChaosReport report) {
        report.figure("signals: committed / rolled back", r.committed() + " / " + r.rolledBack(), true);
        report.figure("signals: committed ones that did not end exactly one wait", Integer.toString(r.notResumedOnce()),
                r.notResumedOnce() == 0);
        report.figure("signals: rolled-back ones stored or read", Integer.toString(r.leaked()), r.leaked() == 0);
        report.figure("signals: completing runs that read another signal", Integer.toString(r.misread()), r.misread() == 0);
        report.figure("signals: waiters completed, with other than two ended waits", r.waiters() + ", " + r.badWaiters(),
                r.badWaiters() == 0);
        report.figure("timers: fired and completed, not exactly once", r.timers() + ", " + r.badTimers(),
                r.badTimers() == 0);
    }
}
