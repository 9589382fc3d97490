package dev.docket.internal.executor;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.WorkflowQueries;
import dev.docket.internal.json.PayloadCodec;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code JobContext.recordOutput} and {@code JobContext.output} do: outputs are held like payloads, encrypted
 * like them for a job whose payload is (bound to the job's id, which the output keeps wherever the job moves).
 */
record RecordedOutputs(WorkflowQueries queries, PayloadCodec codec, PayloadCrypto crypto, String workerId) {

    void record(Fence fence, Object value, boolean encrypted) {
        String json;
        try {
            json = codec.toJson(value == null ? NullNode.getInstance() : value);
        } catch (IllegalArgumentException e) {
            // The codec speaks of payloads; the limits are the same, the word is not.
            throw new IllegalArgumentException(e.getMessage().replaceFirst("^payload", "output"));
        }
        String stored = encrypted ? crypto.seal(json, PayloadCrypto.outputContext(fence.id()), "the output of job "
                + fence.id()) : json;
        boolean recorded = Database.call("recording the output of job " + fence.id(),
                () -> queries.recordOutput(fence, workerId, stored));
        if (!recorded) {
            throw new IllegalStateException("job " + fence.id() + " attempt " + fence.attempt()
                    + " no longer holds its lease; its output was not recorded");
        }
    }

    <T> Optional<T> read(long jobId, Class<T> type) {
        Objects.requireNonNull(type, "type");
        return Database.call("reading the output of job " + jobId, () -> queries.completedOutput(jobId))
                .map(json -> codec.fromJson(PayloadCrypto.isSealed(json)
                        ? crypto.open(json, PayloadCrypto.outputContext(jobId), "the output of job " + jobId) : json, type));
    }
}
