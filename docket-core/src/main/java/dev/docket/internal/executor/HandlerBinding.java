package dev.docket.internal.executor;

import dev.docket.HandlerOptions;
import dev.docket.JobContext;
import dev.docket.JobHandler;
import dev.docket.RetryPolicy;
import dev.docket.internal.json.PayloadCodec;

/** A handler with the payload type it reads, the retry policy of its kind and its per-kind options. */
public record HandlerBinding<T>(Class<T> payloadType, JobHandler<T> handler, RetryPolicy retryPolicy,
                                HandlerOptions options) {

    /** Reads the payload; an {@link IllegalArgumentException} says why it does not map (without its content). */
    Object decode(PayloadCodec codec, String payloadJson) {
        return codec.fromJson(payloadJson, payloadType);
    }

    void invoke(Object payload, JobContext ctx) throws Exception {
        handler.handle(payloadType.cast(payload), ctx);
    }
}
