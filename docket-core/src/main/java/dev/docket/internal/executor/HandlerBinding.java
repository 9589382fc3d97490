package dev.docket.internal.executor;

import dev.docket.HandlerOptions;
import dev.docket.JobContext;
import dev.docket.JobHandler;
import dev.docket.RetryPolicy;
import dev.docket.internal.json.PayloadCodec;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A handler with the payload type it reads, the retry policy of its kind, its per-kind options, and
 * the upcasters that bring older payload versions to the one it reads ({@code upcasters.get(v)} turns
 * version v into v + 1).
 */
public record HandlerBinding<T>(Class<T> payloadType, JobHandler<T> handler, RetryPolicy retryPolicy,
                                HandlerOptions options, Map<Integer, UnaryOperator<JsonNode>> upcasters) {

    public HandlerBinding {
        upcasters = Map.copyOf(upcasters);
    }

    /**
     * Reads a payload of version {@code version}, upcasting it step by step to the handler's version;
     * an {@link IllegalArgumentException} says why it cannot be read (never with the payload's content).
     */
    Object decode(PayloadCodec codec, String payloadJson, int version) {
        int wanted = options.payloadVersion();
        if (version > wanted) {
            throw new IllegalArgumentException("payload version " + version + " is newer than this worker's handler reads ("
                    + wanted + "); deploy the handler that knows it");
        }
        if (version == wanted) {
            return codec.fromJson(payloadJson, payloadType);
        }
        JsonNode tree = codec.readTree(payloadJson);
        for (int v = version; v < wanted; v++) {
            UnaryOperator<JsonNode> step = upcasters.get(v);
            if (step == null) {
                throw new IllegalArgumentException("no upcaster from payload version " + v + " to " + (v + 1)
                        + " (the handler reads version " + wanted + ")");
            }
            try {
                tree = step.apply(tree);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("the upcaster from payload version " + v + " failed ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
        return codec.fromTree(tree, payloadType);
    }

    void invoke(Object payload, JobContext ctx) throws Exception {
        handler.handle(payloadType.cast(payload), ctx);
    }
}
