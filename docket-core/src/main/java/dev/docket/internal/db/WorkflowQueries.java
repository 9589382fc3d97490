package dev.docket.internal.db;

import java.sql.SQLException;
import java.util.Optional;

/** Recorded outputs of jobs (JobContext.recordOutput), and workflows with their steps. */
public record WorkflowQueries(Jdbc jdbc, Statements sql) {

    /** Records a running attempt's output, fenced; false when the attempt no longer holds the job. */
    public boolean recordOutput(Fence fence, String workerId, String outputJson) throws SQLException {
        return jdbc.update(sql.get("workflowRecordOutput"), p -> p.text(outputJson).int8(fence.id())
                .int4(fence.attempt()).text(workerId)) == 1;
    }

    /** The output a completed job recorded, as JSON text; empty if it recorded none or is not (or no longer) in the history. */
    public Optional<String> completedOutput(long jobId) throws SQLException {
        return jdbc.first(sql.get("workflowCompletedOutput"), p -> p.int8(jobId), rs -> rs.getString("output"));
    }
}
