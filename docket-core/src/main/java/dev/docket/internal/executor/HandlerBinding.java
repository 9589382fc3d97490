package dev.docket.internal.executor;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.JobContext;
import dev.docket.JobHandler;
import dev.docket.JobKind;
import dev.docket.RetryPolicy;
import dev.docket.TransactionalJobHandler;
import dev.docket.internal.json.PayloadCodec;
import java.sql.Connection;
import java.util.function.UnaryOperator;

/**
 * A handler with its kind (payload type and version, upcasters, lease, timeout) and the retry policy
 * its failures follow (the kind's own, or the Docket's default). Exactly one of {@code handler} and
 * {@code transactional} is set.
 */
public record HandlerBinding<T>(JobKind<T> kind, JobHandler<T> handler, RetryPolicy retryPolicy,
                                TransactionalJobHandler<T> transactional) {

    /** An ordinary handler, whose outcomes the completer writes in batches. */
    public HandlerBinding(JobKind<T> kind, JobHandler<T> handler, RetryPolicy retryPolicy) {
        this(kind, handler, retryPolicy, null);
    }

    public HandlerBinding {
        if ((handler == null) == (transactional == null)) {
            throw new IllegalArgumentException("a binding has either a handler or a transactional handler");
        }
    }

    /** Whether the handler runs in a transaction that also writes its job's outcome. */
    public boolean isTransactional() {
        return transactional != null;
    }

    /** The same handler for {@code kind} (the kind with an upcaster more). */
    public HandlerBinding<T> withKind(JobKind<T> kind) {
        return new HandlerBinding<>(kind, handler, retryPolicy, transactional);
    }

    /**
     * Reads a payload of version {@code version} (at most the kind's), upcasting it step by step to the
     * kind's version; an {@link IllegalArgumentException} says why it cannot be read (never with the
     * payload's content).
     */
    Object decode(PayloadCodec codec, String payloadJson, int version) {
        int wanted = kind.payloadVersion();
        if (version == wanted) {
            return codec.fromJson(payloadJson, kind.payloadType());
        }
        JsonNode tree = codec.readTree(payloadJson);
        for (int v = version; v < wanted; v++) {
            UnaryOperator<JsonNode> step = kind.upcasters().get(v);
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
        return codec.fromTree(tree, kind.payloadType());
    }

    void invoke(Object payload, JobContext ctx) throws Exception {
        handler.handle(kind.payloadType().cast(payload), ctx);
    }

    void invoke(Object payload, JobContext ctx, Connection tx) throws Exception {
        transactional.handle(kind.payloadType().cast(payload), ctx, tx);
    }
}
