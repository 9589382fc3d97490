package dev.docket.internal.db;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Recorded outputs of jobs (JobContext.recordOutput), and workflows with their steps. */
public record WorkflowQueries(Jdbc jdbc, Statements sql) {

    /** A workflow's row. */
    public record WorkflowRow(long id, String name, String dependencyMode, Instant createdAt) {
    }

    /** A step with its job's kind and state now (both null when the job is in no table any more). */
    public record StepRow(String step, long jobId, List<String> dependsOn, String kind, String state) {
    }

    /** A dead or cancelled step to retry; the job fields are its history row's (null for a dead step). */
    public record RetryTarget(String step, long jobId, List<String> dependsOn, boolean dead, String queue, String kind,
                              String payload, int payloadVersion, int priority, int maxAttempts, String tenant,
                              String metadata, InsertRow.Waits waits) {
    }

    /** Records a running attempt's output, fenced; false when the attempt no longer holds the job. */
    public boolean recordOutput(Fence fence, String workerId, String outputJson) throws SQLException {
        return jdbc.update(sql.get("workflowRecordOutput"), p -> p.text(outputJson).int8(fence.id())
                .int4(fence.attempt()).text(workerId)) == 1;
    }

    /** The output a completed job recorded, as JSON text; empty if it recorded none or is not (or no longer) in the history. */
    public Optional<String> completedOutput(long jobId) throws SQLException {
        return jdbc.first(sql.get("workflowCompletedOutput"), p -> p.int8(jobId), rs -> rs.getString("output"));
    }

    /** Inserts a workflow's row on the caller's connection; returns its id. */
    public long insert(Connection c, String name, String dependencyMode) throws SQLException {
        return Jdbc.first(c, sql.get("workflowInsert"), p -> p.text(name).text(dependencyMode), rs -> rs.getLong("id"))
                .orElseThrow();
    }

    /** Inserts a workflow's steps; {@code dependsOnJson[i]} is a JSON array of step names. */
    /** Records a workflow's steps: each one's job, the steps it waits for, and its declared waits (null for none). */
    public void insertSteps(Connection c, long workflowId, List<String> steps, List<Long> jobIds,
                            List<String> dependsOnJson, List<InsertRow.Waits> waits) throws SQLException {
        List<String> signals = new ArrayList<>(steps.size());
        List<Long> timeouts = new ArrayList<>(steps.size());
        List<String> onTimeouts = new ArrayList<>(steps.size());
        List<Long> delays = new ArrayList<>(steps.size());
        for (InsertRow.Waits w : waits) {
            signals.add(w == null ? null : w.signal());
            timeouts.add(w == null ? null : w.timeoutMillis());
            onTimeouts.add(w == null ? null : w.onTimeout());
            delays.add(w == null ? null : w.dependencyDelayMillis());
        }
        Jdbc.update(c, sql.get("workflowInsertSteps"), p -> p.int8(workflowId).array("text", steps)
                .array("bigint", jobIds).array("text", dependsOnJson).array("text", signals)
                .array("bigint", timeouts).array("text", onTimeouts).array("bigint", delays));
    }

    public Optional<WorkflowRow> find(long id) throws SQLException {
        return jdbc.first(sql.get("workflowFind"), p -> p.int8(id), rs -> new WorkflowRow(rs.getLong("id"),
                rs.getString("name"), rs.getString("dependency_mode"), Jdbc.instant(rs, "created_at")));
    }

    public List<StepRow> steps(long workflowId) throws SQLException {
        return jdbc.list(sql.get("workflowSteps"), p -> p.int8(workflowId), rs -> new StepRow(rs.getString("step"),
                rs.getLong("job_id"), names(rs.getArray("depends_on")), rs.getString("kind"), rs.getString("state")));
    }

    /** Cancels every live step of the workflow; returns how many. */
    public long cancel(long workflowId) throws SQLException {
        return jdbc.first(sql.get("workflowCancel"), p -> p.int8(workflowId), rs -> rs.getLong("cancelled"))
                .orElseThrow();
    }

    /** The dead and cancelled steps of a workflow, locked until the caller's transaction ends. */
    public List<RetryTarget> retryTargets(Connection c, long workflowId) throws SQLException {
        return Jdbc.list(c, sql.get("workflowRetryTargets"), p -> p.int8(workflowId), rs -> new RetryTarget(
                rs.getString("step"), rs.getLong("job_id"), names(rs.getArray("depends_on")), rs.getBoolean("dead"),
                rs.getString("queue"), rs.getString("kind"), rs.getString("payload"), rs.getInt("payload_version"),
                rs.getInt("priority"), rs.getInt("max_attempts"), rs.getString("tenant"), rs.getString("metadata"),
                waits(rs)));
    }

    /** Each step's current job id. */
    public Map<String, Long> stepJobs(Connection c, long workflowId) throws SQLException {
        Map<String, Long> jobs = new HashMap<>();
        Jdbc.each(c, sql.get("workflowStepJobs"), p -> p.int8(workflowId),
                rs -> jobs.put(rs.getString("step"), rs.getLong("job_id")));
        return jobs;
    }

    /** Replays dead jobs on the caller's connection (the dead-letter replay statement); returns those replayed. */
    public List<Long> replayDead(Connection c, List<Long> ids) throws SQLException {
        return Jdbc.list(c, sql.get("deadJobReplay"), p -> p.array("bigint", ids), rs -> rs.getLong("id"));
    }

    /** Points a step at the job that now runs it. */
    public void moveStep(Connection c, long workflowId, String step, long jobId) throws SQLException {
        Jdbc.update(c, sql.get("workflowMoveStep"), p -> p.int8(jobId).int8(workflowId).text(step));
    }

    /** A step's declared waits, null for a step that waits for nothing but its steps before it. */
    private static InsertRow.Waits waits(ResultSet rs) throws SQLException {
        String signal = rs.getString("await_signal");
        Long delay = rs.getObject("dependency_delay_ms", Long.class);
        if (signal == null && delay == null) {
            return null;
        }
        return new InsertRow.Waits(signal, rs.getObject("await_timeout_ms", Long.class), rs.getString("await_on_timeout"),
                delay);
    }

    private static List<String> names(Array array) throws SQLException {
        return array == null ? List.of() : List.of((String[]) array.getArray());
    }
}
