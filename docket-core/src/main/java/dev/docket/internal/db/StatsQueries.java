package dev.docket.internal.db;

import dev.docket.QueueStats;
import dev.docket.TenantRunning;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Statistics over all tables, for the admin API, the dashboard and the metrics. */
public record StatsQueries(Jdbc jdbc, Statements sql) {

    /** One queue and kind's figures as the three statements fill them in. */
    private static final class Figures {
        long scheduled;
        long ready;
        long running;
        long overdue;
        double lagSeconds;
        long retriedLastMinute;
        long completedLastMinute;
        Double pickupP50;
        Double pickupP99;
        long dead;
        long deadLastDay;
        long deadLastMinute;
    }

    /** Per queue and kind: live counts, lag, throughput, failures, dead-letter size and pickup latency. */
    public List<QueueStats> stats() throws SQLException {
        Map<String, Map<String, Figures>> byQueue = new TreeMap<>();
        jdbc.transaction(c -> {
            Jdbc.execute(c, sql.get("statsSnapshot"), Jdbc.NO_PARAMETERS);
            Jdbc.each(c, sql.get("statsLive"), Jdbc.NO_PARAMETERS, rs -> {
                Figures f = figures(byQueue, rs);
                f.scheduled = rs.getLong("scheduled");
                f.ready = rs.getLong("ready");
                f.running = rs.getLong("running");
                f.overdue = rs.getLong("overdue");
                f.lagSeconds = rs.getDouble("lag_seconds");
                f.retriedLastMinute = rs.getLong("retried_last_minute");
            });
            Jdbc.each(c, sql.get("statsHistory"), Jdbc.NO_PARAMETERS, rs -> {
                Figures f = figures(byQueue, rs);
                f.completedLastMinute = rs.getLong("completed_last_minute");
                f.pickupP50 = rs.getObject("pickup_p50_ms", Double.class);
                f.pickupP99 = rs.getObject("pickup_p99_ms", Double.class);
            });
            Jdbc.each(c, sql.get("statsDead"), Jdbc.NO_PARAMETERS, rs -> {
                Figures f = figures(byQueue, rs);
                f.dead = rs.getLong("dead");
                f.deadLastDay = rs.getLong("dead_last_day");
                f.deadLastMinute = rs.getLong("dead_last_minute");
            });
            return null;
        });
        List<QueueStats> stats = new ArrayList<>();
        byQueue.forEach((queue, kinds) -> kinds.forEach((kind, f) -> stats.add(new QueueStats(queue, kind,
                f.scheduled, f.ready, f.running, f.overdue, f.lagSeconds, f.completedLastMinute,
                f.retriedLastMinute + f.deadLastMinute, f.dead, f.deadLastDay, f.pickupP50, f.pickupP99))));
        return stats;
    }

    private static Figures figures(Map<String, Map<String, Figures>> byQueue, ResultSet rs) throws SQLException {
        return byQueue.computeIfAbsent(rs.getString("queue"), q -> new TreeMap<>())
                .computeIfAbsent(rs.getString("kind"), k -> new Figures());
    }

    /** One queue and kind's live jobs by state, the scheduled ones already due, and its lag: what the gauges show. */
    public record LiveCounts(String queue, String kind, long scheduled, long ready, long running, long overdue,
                             double lagSeconds) {
    }

    /** The hot table's vacuum debt; {@code vacuumAgeSeconds} null when it was never vacuumed. */
    public record VacuumDebt(long deadTuples, Double vacuumAgeSeconds) {
    }

    /** Live jobs per queue and kind (the hot table only), for gauges. */
    public List<LiveCounts> live() throws SQLException {
        return jdbc.list(sql.get("statsLive"), Jdbc.NO_PARAMETERS, rs -> new LiveCounts(rs.getString("queue"),
                rs.getString("kind"), rs.getLong("scheduled"), rs.getLong("ready"), rs.getLong("running"),
                rs.getLong("overdue"), rs.getDouble("lag_seconds")));
    }

    /** The jobs table's dead tuples and time since its last vacuum. */
    public VacuumDebt jobsTableVacuum() throws SQLException {
        return jdbc.first(sql.get("statsJobsTableVacuum"), Jdbc.NO_PARAMETERS, rs -> new VacuumDebt(
                rs.getLong("dead_tuples"), rs.getObject("vacuum_age_seconds", Double.class))).orElseThrow();
    }

    /** Running jobs per queue and tenant (tenant null for jobs without one), most first within a queue. */
    public List<TenantRunning> runningByTenant() throws SQLException {
        return jdbc.list(sql.get("statsRunningByTenant"), Jdbc.NO_PARAMETERS,
                rs -> new TenantRunning(rs.getString("queue"), rs.getString("tenant"), rs.getLong("running")));
    }
}
