package dev.docket.chaos;

import dev.docket.JobContext;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Sequences under chaos ({@link JobOptions.Builder#sequenceKey}): keyed jobs of kind {@value #KIND}
 * whose every execution records when it started and ended (the database clock), and the check that,
 * per key, no two executions overlapped unless the earlier one's worker was disturbed (killed,
 * stalled: the at-least-once exception), and jobs completed in enqueue order.
 */
final class SequenceChaos {

    static final String KIND = "ordered";
    private static final String S = ChaosHarness.SCHEMA;

    /** A keyed job's payload: the {@code n}th job of sequence {@code key}, working {@code workMs}. */
    record Step(String key, int n, int workMs) {
    }

    /**
     * What the check found.
     *
     * @param executions   executions of keyed jobs
     * @param overlaps     executions that started while an earlier one of the key, on an undisturbed worker, ran
     * @param explained    overlaps after an execution whose worker was killed or stalled
     * @param outOfOrder   completions of a key earlier than a completion of a job enqueued before them
     * @param completed    keyed jobs completed
     */
    record Result(int executions, int overlaps, int explained, int outOfOrder, int completed) {
        boolean ok() {
            return overlaps == 0 && outOfOrder == 0;
        }
    }

    private SequenceChaos() {
    }

    static void createTable(DataSource db) throws SQLException {
        Sql.execute(db, "CREATE TABLE " + S + ".ordered_runs (id bigint GENERATED ALWAYS AS IDENTITY, job_id bigint NOT NULL, "
                + "attempt int NOT NULL, worker text NOT NULL, sequence_key text NOT NULL, n int NOT NULL, "
                + "started_at timestamptz NOT NULL DEFAULT clock_timestamp(), ended_at timestamptz)");
    }

    /** {@code perKey} jobs in each of {@code keys} sequences named {@code prefix0, prefix1, ...}, interleaved, in enqueue order. */
    static List<NewJob> jobs(String prefix, int keys, int perKey, int workMs) {
        List<NewJob> jobs = new ArrayList<>(keys * perKey);
        for (int n = 0; n < perKey; n++) {
            jobs.addAll(wave(prefix, keys, n, workMs));
        }
        return jobs;
    }

    /** The {@code n}th job of each of {@code keys} sequences. */
    static List<NewJob> wave(String prefix, int keys, int n, int workMs) {
        List<NewJob> jobs = new ArrayList<>(keys);
        for (int k = 0; k < keys; k++) {
            String key = prefix + k;
            jobs.add(NewJob.of(KIND, new Step(key, n, workMs), JobOptions.builder().sequenceKey(key).build()));
        }
        return jobs;
    }

    /** The worker's handler: the ledger row the other checks read, then a start row, the work, and its end. */
    static void run(DataSource db, Step step, JobContext ctx, String worker) throws Exception {
        ChaosWorker.record(db, "ledger", ctx.jobId(), ctx.attempt(), worker);
        long run;
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO " + S
                + ".ordered_runs (job_id, attempt, worker, sequence_key, n) VALUES (?, ?, ?, ?, ?) RETURNING id")) {
            ps.setLong(1, ctx.jobId());
            ps.setInt(2, ctx.attempt());
            ps.setString(3, worker);
            ps.setString(4, step.key());
            ps.setInt(5, step.n());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                run = rs.getLong(1);
            }
        }
        Thread.sleep(step.workMs());
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
                "UPDATE " + S + ".ordered_runs SET ended_at = clock_timestamp() WHERE id = ?")) {
            ps.setLong(1, run);
            ps.executeUpdate();
        }
    }

    /**
     * Checks every key: executions in start order must not overlap (an execution cut short by a kill has
     * no end and is skipped; an overlap after an execution on a worker {@code disturbance} names is
     * explained), and completions in finish order must be in enqueue (id) order.
     */
    static Result check(DataSource db, Function<String, String> disturbance) throws SQLException {
            record Run(String worker, Instant start, Instant end) {
        }
        Map<String, List<Run>> runs = new HashMap<>();
        int executions = 0;
        int overlaps = 0;
        int explained = 0;
        int outOfOrder = 0;
        int completed = 0;
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT sequence_key, worker, started_at, ended_at FROM " + S
                    + ".ordered_runs ORDER BY sequence_key, started_at")) {
                while (rs.next()) {
                    OffsetDateTime end = rs.getObject(4, OffsetDateTime.class);
                    runs.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(new Run(rs.getString(2), rs.getObject(3, OffsetDateTime.class).toInstant(),
                            end == null ? null : end.toInstant()));
                    executions++;
                }
            }
            for (List<Run> ofKey : runs.values()) {
                // The earlier execution that ended last: a later start before its end is an overlap.
                Run latest = null;
                for (Run run : ofKey) {
                    if (latest != null && run.start().isBefore(latest.end())) {
                        if (disturbance.apply(latest.worker()) != null) {
                            explained++;
                        } else {
                            overlaps++;
                        }
                    }
                    if (run.end() != null && (latest == null || run.end().isAfter(latest.end()))) {
                        latest = run;
                    }
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT count(*) FILTER (WHERE id < previous), count(*) FROM ("
                    + "SELECT id, lag(id) OVER (PARTITION BY sequence_key ORDER BY finished_at, id) AS previous FROM "
                    + S + ".job_history WHERE state = 'completed' AND sequence_key IS NOT NULL) h")) {
                rs.next();
                outOfOrder = rs.getInt(1);
                completed = rs.getInt(2);
            }
        }
        return new Result(executions, overlaps, explained, outOfOrder, completed);
    }

    /** The check as rows of a chaos report. */
    static void report(Result result, ChaosReport report) {
        report.figure("sequences: executions of keyed jobs", Integer.toString(result.executions()), true);
        report.figure("sequences: overlapping executions of a key", result.overlaps() + " (" + result.explained()
                + " more after a disturbed worker)", result.overlaps() == 0);
        report.figure("sequences: completions out of enqueue order", result.outOfOrder() + " of " + result.completed(),
                result.outOfOrder() == 0);
    }
}
