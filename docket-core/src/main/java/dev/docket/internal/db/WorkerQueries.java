package dev.docket.internal.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.WorkerInfo;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The workers table: the registry of live workers, one row per worker. */
public record WorkerQueries(Jdbc jdbc, Statements sql, ObjectMapper json) {

    private static final TypeReference<Map<String, Integer>> COUNTS = new TypeReference<>() { };

    /** What a worker writes about itself each round. */
    public record Registration(String id, String host, long pid, Map<String, Integer> queues,
                               Map<String, Integer> kinds, String version, Integer poolSize, int connectionsNeeded,
                               boolean listen, boolean listening, List<String> stalled, Duration heartbeatInterval,
                               int handlersRunning, long finishedLastMinute, long failedLastMinute) {
    }

    /** Writes the worker's row (inserting it if missing) with a fresh heartbeat; prunes rows dead for an hour. */
    public void register(Registration r) throws SQLException {
        String queues = write(r.queues());
        String kinds = write(r.kinds());
        jdbc.update(sql.get("workerRegister"), p -> p.text(r.id()).text(r.id()).text(r.host()).int8(r.pid())
                .text(queues).text(kinds).text(r.version()).int4(r.poolSize()).int4(r.connectionsNeeded())
                .bool(r.listen()).bool(r.listening()).array("text", r.stalled())
                .int8(Math.max(1, r.heartbeatInterval().toMillis()))
                .int4(r.handlersRunning()).int8(r.finishedLastMinute()).int8(r.failedLastMinute()));
    }

    /** Deletes the worker's row: what a graceful stop does. */
    public void deregister(String id) throws SQLException {
        jdbc.update(sql.get("workerDeregister"), p -> p.text(id));
    }

    /** Every registered worker, live or with stopped heartbeats, oldest first. */
    public List<WorkerInfo> list() throws SQLException {
        return jdbc.list(sql.get("workerList"), Jdbc.NO_PARAMETERS, this::worker);
    }

    private WorkerInfo worker(ResultSet rs) throws SQLException {
        Array stalled = rs.getArray("stalled");
        return new WorkerInfo(rs.getString("id"), rs.getString("host"), rs.getLong("pid"), read(rs.getString("queues")),
                read(rs.getString("kinds")), rs.getString("version"), rs.getObject("pool_size", Integer.class),
                rs.getInt("connections_needed"), rs.getBoolean("listen"), rs.getBoolean("listening"),
                List.of((String[]) stalled.getArray()), Duration.ofMillis(rs.getLong("heartbeat_interval_ms")),
                Jdbc.instant(rs, "started_at"), Jdbc.instant(rs, "heartbeat_at"), rs.getBoolean("live"),
                rs.getLong("running"), rs.getInt("handlers_running"), rs.getLong("finished_last_minute"),
                rs.getLong("failed_last_minute"),
                Duration.ofMillis(Math.max(0, Math.round(rs.getDouble("heartbeat_age_seconds") * 1000))));
    }

    private String write(Map<String, Integer> map) throws SQLException {
        try {
            return json.writeValueAsString(map);
        } catch (JsonProcessingException e) {
            throw new SQLException("cannot write " + map + " as JSON", e);
        }
    }

    private Map<String, Integer> read(String text) throws SQLException {
        try {
            return json.readValue(text, COUNTS);
        } catch (JsonProcessingException e) {
            throw new SQLException("a workers row holds unreadable JSON", e);
        }
    }
}
