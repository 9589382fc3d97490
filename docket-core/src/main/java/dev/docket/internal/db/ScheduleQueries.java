package dev.docket.internal.db;

import dev.docket.JobState;
import dev.docket.ScheduleDefinition;
import dev.docket.ScheduleInfo;
import dev.docket.ScheduleRun;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The schedules table (periodic jobs stored at run time, and the code-declared ones written for display)
 * and schedule_runs (the jobs of each schedule's last slots). A change to a stored schedule and the
 * restart of its slots ({@code cron_slots}) commit together.
 */
public record ScheduleQueries(Jdbc jdbc, Statements sql) {

    /** A stored schedule as the leader reads it each round: enough to enqueue its slots. */
    public record Stored(String name, String cron, String zone, String kind, String payloadJson, String queue,
                         Integer priority, Integer maxAttempts, ScheduleDefinition.CatchUp catchUp, long version) {
    }

    /** A code-declared schedule, as its leader writes it for display. */
    public record Declared(String name, String cron, String zone, String kind, String payloadJson, String queue,
                           Short priority, Integer maxAttempts) {
    }

    /** What a change met: the schedule changed, none of this name, or one declared in code. */
    public enum Change { CHANGED, MISSING, CODE }

    public List<ScheduleInfo> list() throws SQLException {
        return jdbc.list(sql.get("scheduleList"), Jdbc.NO_PARAMETERS, ScheduleQueries::info);
    }

    public Optional<ScheduleInfo> find(String name) throws SQLException {
        return jdbc.first(sql.get("scheduleFind"), p -> p.text(name), ScheduleQueries::info);
    }

    /** The stored schedules that are not paused: the leader's one read of this table per round. */
    public List<Stored> listRuntime() throws SQLException {
        return jdbc.list(sql.get("scheduleListRuntime"), Jdbc.NO_PARAMETERS, rs -> new Stored(rs.getString("name"),
                rs.getString("cron"), rs.getString("zone"), rs.getString("kind"), rs.getString("payload"),
                rs.getString("queue"), priority(rs),
                (Integer) rs.getObject("max_attempts"), catchUp(rs.getString("catch_up")), rs.getLong("version")));
    }

    /** Writes a leader's code declarations; rows stored at run time under the same names are left alone. */
    public void declare(List<Declared> declared) throws SQLException {
        if (declared.isEmpty()) {
            return;
        }
        jdbc.update(sql.get("scheduleDeclare"), p -> p
                .array("text", declared.stream().map(Declared::name).toList())
                .array("text", declared.stream().map(Declared::cron).toList())
                .array("text", declared.stream().map(Declared::zone).toList())
                .array("text", declared.stream().map(Declared::kind).toList())
                .array("text", declared.stream().map(Declared::payloadJson).toList())
                .array("text", declared.stream().map(Declared::queue).toList())
                .array("int2", declared.stream().map(Declared::priority).toArray())
                .array("int4", declared.stream().map(Declared::maxAttempts).toArray()));
    }

    /** Stores a new schedule and starts its slots at the next one; false if the name is taken (by either origin). */
    public boolean insert(ScheduleDefinition d, String payloadJson, String by) throws SQLException {
        return jdbc.transaction(c -> {
            int inserted = Jdbc.update(c, sql.get("scheduleInsert"), p -> p.text(d.name()).text(d.cron().trim())
                    .text(d.zone().getId()).text(d.kind()).text(payloadJson).text(d.queue()).int4(d.priority())
                    .int4(d.maxAttempts()).text(label(d.catchUp())).text(by).text(by));
            if (inserted == 0) {
                return false;
            }
            Jdbc.update(c, sql.get("cronSlotRestart"), p -> p.text(d.name()));
            return true;
        });
    }

    /**
     * Replaces a stored schedule's definition. A new cron or zone restarts its slots at the next one (slots
     * of the old expression are not caught up under the new one); other changes keep its place.
     */
    public Change update(ScheduleDefinition d, String payloadJson, String by) throws SQLException {
        return jdbc.transaction(c -> {
            Optional<String[]> row = lock(c, d.name());
            if (row.isEmpty()) {
                return Change.MISSING;
            }
            if (row.get()[0].equals("code")) {
                return Change.CODE;
            }
            Jdbc.update(c, sql.get("scheduleUpdate"), p -> p.text(d.cron().trim()).text(d.zone().getId()).text(d.kind())
                    .text(payloadJson).text(d.queue()).int4(d.priority()).int4(d.maxAttempts()).text(label(d.catchUp()))
                    .text(by).text(d.name()));
            if (!row.get()[1].equals(d.cron().trim()) || !row.get()[2].equals(d.zone().getId())) {
                Jdbc.update(c, sql.get("cronSlotRestart"), p -> p.text(d.name()));
            }
            return Change.CHANGED;
        });
    }

    /** Pauses or resumes a stored schedule; a resume starts again at the next slot (the paused ones are skipped). */
    public Change setPaused(String name, boolean paused, String by) throws SQLException {
        return jdbc.transaction(c -> {
            Optional<String[]> row = lock(c, name);
            if (row.isEmpty()) {
                return Change.MISSING;
            }
            if (row.get()[0].equals("code")) {
                return Change.CODE;
            }
            Jdbc.update(c, sql.get("scheduleSetPaused"), p -> p.bool(paused).text(by).text(name));
            if (!paused) {
                Jdbc.update(c, sql.get("cronSlotRestart"), p -> p.text(name));
            }
            return Change.CHANGED;
        });
    }

    /** Deletes a stored schedule with its slot and its runs. */
    public Change delete(String name) throws SQLException {
        return jdbc.transaction(c -> {
            Optional<String[]> row = lock(c, name);
            if (row.isEmpty()) {
                return Change.MISSING;
            }
            if (row.get()[0].equals("code")) {
                return Change.CODE;
            }
            Jdbc.update(c, sql.get("scheduleDelete"), p -> p.text(name));
            Jdbc.update(c, sql.get("cronSlotDelete"), p -> p.text(name));
            Jdbc.update(c, sql.get("scheduleRunDelete"), p -> p.text(name));
            return Change.CHANGED;
        });
    }

    /** Records the job of a slot, in the slot's transaction, keeping the schedule's 20 newest. */
    void recordRun(Connection c, String name, Instant slot, long jobId) throws SQLException {
        Jdbc.update(c, sql.get("scheduleRunInsert"), p -> p.text(name).timestamptz(slot).int8(jobId));
        Jdbc.update(c, sql.get("scheduleRunPrune"), p -> p.text(name).text(name));
    }

    /** A schedule's newest runs first, each with its job's state now. */
    public List<ScheduleRun> runs(String name, int limit) throws SQLException {
        return jdbc.list(sql.get("scheduleRunList"), p -> p.text(name).int4(limit), rs -> {
            String state = rs.getString("state");
            return new ScheduleRun(Jdbc.instant(rs, "slot"), rs.getLong("job_id"), Jdbc.instant(rs, "enqueued_at"),
                    state == null ? Optional.empty() : Optional.of(JobState.valueOf(state.toUpperCase(Locale.ROOT))));
        });
    }

    /** The origin, cron and zone of a schedule, locked for the change that follows. */
    private Optional<String[]> lock(Connection c, String name) throws SQLException {
        return Jdbc.first(c, sql.get("scheduleLock"), p -> p.text(name),
                rs -> new String[] {rs.getString("origin"), rs.getString("cron"), rs.getString("zone")});
    }

    private static ScheduleInfo info(ResultSet rs) throws SQLException {
        return new ScheduleInfo(rs.getString("name"),
                "code".equals(rs.getString("origin")) ? ScheduleInfo.Origin.CODE : ScheduleInfo.Origin.RUNTIME,
                rs.getString("cron"), ZoneId.of(rs.getString("zone")), rs.getString("kind"), rs.getString("payload"),
                rs.getString("queue"), priority(rs), (Integer) rs.getObject("max_attempts"),
                catchUp(rs.getString("catch_up")), rs.getBoolean("paused"), rs.getBoolean("kind_served"),
                rs.getLong("version"), Jdbc.instant(rs, "created_at"), rs.getString("created_by"),
                Jdbc.instant(rs, "updated_at"), rs.getString("updated_by"), Jdbc.instant(rs, "last_slot"));
    }

    private static Integer priority(ResultSet rs) throws SQLException {
        Object p = rs.getObject("priority");
        return p == null ? null : ((Number) p).intValue();
    }

    private static ScheduleDefinition.CatchUp catchUp(String label) {
        return ScheduleDefinition.CatchUp.valueOf(label.toUpperCase(Locale.ROOT));
    }

    private static String label(ScheduleDefinition.CatchUp catchUp) {
        return catchUp.name().toLowerCase(Locale.ROOT);
    }
}
