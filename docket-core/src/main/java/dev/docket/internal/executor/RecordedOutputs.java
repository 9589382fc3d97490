package dev.docket.internal.executor;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.WorkflowQueries;
import dev.docket.internal.json.PayloadCodec;
import java.util.Objects;
import java.util.Optional;

/** What {@code JobContext.recordOutput} and {@code JobContext.output} do: outputs are held like payloads. */
record RecordedOutputs(WorkflowQueries queries, PayloadCodec codec, String workerId) {

    void record(Fence fence, Object value) {
        String json;
        try {
            json = codec.toJson(value == null ? NullNode.getInstance() : value);
        } catch (IllegalArgumentException e) {
            // The codec speaks of payloads; the limits are the same, the word is not.
            throw new IllegalArgumentException(e.getMessage().replaceFirst("^payload", "output"));
        }
        boolean recorded = Database.call("recording the output of job " + fence.id(),
                () -> queries.recordOutput(fence, workerId, json));
        if (!recorded) {
            throw new IllegalStateException("job " + fence.id() + " attempt " + fence.attempt()
                    + " no longer holds its lease; its output was not recorded");
        }
    }

    <T> Optional<T> read(long jobId, Class<T> type) {
        Objects.requireNonNull(type, "type");
        return Database.call("reading the output of job " + jobId, () -> queries.completedOutput(jobId))
                .map(json -> codec.fromJson(json, type));
    }
}
