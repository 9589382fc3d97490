package dev.docket.internal.db;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Doctor's read-only look at the server (horizon, vacuum, replication) and at Docket's tables. */
public record DoctorQueries(Jdbc jdbc, Statements sql) {

    /** The jobs table's vacuum figures and storage options. */
    public record JobsTable(long reltuples, List<String> reloptions, Long liveRows, Long deadRows,
                            Double sinceVacuumSeconds, long autovacuumCount, boolean autovacuumOn,
                            long vacuumThreshold, long claimIndexPages, long readyRows) {
    }

    /** A session holding the xmin horizon back. */
    public record Session(int pid, String user, String application, String clientAddr, String state,
                          String backendType, double transactionSeconds, double stateSeconds, long xidAge) {
    }

    /** A replication slot holding the horizon back. */
    public record Slot(String name, String type, boolean active, Integer activePid, String database, long xidAge) {
    }

    /** A prepared transaction. */
    public record Prepared(String gid, String owner, String database, long xidAge, double seconds) {
    }

    /** A standby whose feedback holds the horizon back. */
    public record Standby(int pid, String application, String clientAddr, String state, long xidAge) {
    }

    /** A queue's figures, settings and lag objective. */
    public record Queue(String name, long ready, long running, Double lagSeconds, boolean paused, Integer maxRunning,
                        Double lagSloSeconds) {
    }

    /** A kind's pickup p99 against its objective; p99 null when no first attempt completed in 5 minutes. */
    public record Pickup(String kind, double sloSeconds, Double p99Seconds, long jobs) {
    }

    /** Dead jobs of a queue and kind in the last day and the day before. */
    public record DeadGrowth(String queue, String kind, long lastDay, long dayBefore) {
    }

    /** Live jobs of a queue and kind that no live worker serves. */
    public record Unserved(String queue, String kind, long ready, long scheduled, long running, boolean queueServed) {
    }

    /** The history's day partitions, today (UTC), and whether the default partition holds rows. */
    public record Partitions(String today, boolean defaultHasRows, List<String> names) {
    }

    /** The maintenance leader (null if none holds the lease) and how overdue scheduled jobs are. */
    public record Maintenance(String leader, Double overdueSeconds) {
    }

    public Optional<JobsTable> jobsTable() throws SQLException {
        return jdbc.first(sql.get("doctorJobsTable"), Jdbc.NO_PARAMETERS, rs -> new JobsTable(rs.getLong("reltuples"),
                strings(rs, "reloptions"), rs.getObject("n_live_tup", Long.class), rs.getObject("n_dead_tup", Long.class),
                rs.getObject("since_vacuum_seconds", Double.class), rs.getLong("autovacuum_count"),
                rs.getBoolean("autovacuum_on"), rs.getLong("vacuum_threshold"), rs.getLong("claim_index_pages"),
                rs.getLong("ready_rows")));
    }

    public List<Session> sessions(Duration olderThan) throws SQLException {
        return jdbc.list(sql.get("doctorSessions"), p -> p.int8(olderThan.toMillis()), rs -> new Session(rs.getInt("pid"),
                rs.getString("usename"), rs.getString("application_name"), rs.getString("client_addr"),
                rs.getString("state"), rs.getString("backend_type"), rs.getDouble("xact_seconds"),
                rs.getDouble("state_seconds"), rs.getLong("xid_age")));
    }

    public List<Slot> slots() throws SQLException {
        return jdbc.list(sql.get("doctorSlots"), Jdbc.NO_PARAMETERS, rs -> new Slot(rs.getString("slot_name"),
                rs.getString("slot_type"), rs.getBoolean("active"), rs.getObject("active_pid", Integer.class),
                rs.getString("database"), rs.getLong("xid_age")));
    }

    public List<Prepared> prepared(Duration olderThan) throws SQLException {
        return jdbc.list(sql.get("doctorPrepared"), p -> p.int8(olderThan.toMillis()), rs -> new Prepared(
                rs.getString("gid"), rs.getString("owner"), rs.getString("database"), rs.getLong("xid_age"),
                rs.getDouble("seconds")));
    }

    public List<Standby> standbys() throws SQLException {
        return jdbc.list(sql.get("doctorStandbys"), Jdbc.NO_PARAMETERS, rs -> new Standby(rs.getInt("pid"),
                rs.getString("application_name"), rs.getString("client_addr"), rs.getString("state"),
                rs.getLong("xid_age")));
    }

    public List<Queue> queues() throws SQLException {
        return jdbc.list(sql.get("doctorQueues"), Jdbc.NO_PARAMETERS, rs -> new Queue(rs.getString("queue"),
                rs.getLong("ready"), rs.getLong("running"), rs.getObject("lag_seconds", Double.class),
                rs.getBoolean("paused"), rs.getObject("max_running", Integer.class),
                rs.getObject("lag_slo_seconds", Double.class)));
    }

    public List<Pickup> pickup() throws SQLException {
        return jdbc.list(sql.get("doctorPickup"), Jdbc.NO_PARAMETERS, rs -> new Pickup(rs.getString("kind"),
                rs.getDouble("slo_seconds"), rs.getObject("p99_seconds", Double.class), rs.getLong("jobs")));
    }

    public List<DeadGrowth> deadGrowth() throws SQLException {
        return jdbc.list(sql.get("doctorDeadGrowth"), Jdbc.NO_PARAMETERS, rs -> new DeadGrowth(rs.getString("queue"),
                rs.getString("kind"), rs.getLong("last_day"), rs.getLong("day_before")));
    }

    public List<Unserved> unserved() throws SQLException {
        return jdbc.list(sql.get("doctorUnserved"), Jdbc.NO_PARAMETERS, rs -> new Unserved(rs.getString("queue"),
                rs.getString("kind"), rs.getLong("ready"), rs.getLong("scheduled"), rs.getLong("running"),
                rs.getBoolean("queue_served")));
    }

    public Partitions partitions() throws SQLException {
        return jdbc.first(sql.get("doctorPartitions"), Jdbc.NO_PARAMETERS, rs -> new Partitions(rs.getString("today"),
                rs.getBoolean("default_has_rows"), strings(rs, "partitions"))).orElseThrow();
    }

    public Maintenance maintenance() throws SQLException {
        return jdbc.first(sql.get("doctorMaintenance"), Jdbc.NO_PARAMETERS, rs -> new Maintenance(rs.getString("leader"),
                rs.getObject("overdue_seconds", Double.class))).orElseThrow();
    }

    private static List<String> strings(ResultSet rs, String column) throws SQLException {
        Array array = rs.getArray(column);
        return array == null ? List.of() : List.of((String[]) array.getArray());
    }
}
