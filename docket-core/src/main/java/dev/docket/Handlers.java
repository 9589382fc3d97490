package dev.docket;

import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.rules.JobOptionRules;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The handlers a {@link Worker.Builder} registers, each bound to the settings of its kind: a
 * {@link JobKind} brings them all; a kind known by name takes the Docket's declared kind of that name,
 * or a kind's defaults.
 */
final class Handlers {

    private final KindRegistry kinds;
    private final Map<String, HandlerBinding<?>> bindings = new HashMap<>();

    Handlers(KindRegistry kinds) {
        this.kinds = kinds;
    }

    /** Binds {@code handler} or, when it is null, {@code transactional} to {@code kind}. */
    <T> void add(JobKind<T> kind, JobHandler<T> handler, TransactionalJobHandler<T> transactional) {
        Objects.requireNonNull(kind, "kind");
        if (kind.byName()) {
            add(kind.name(), kind.payloadType(), handler, transactional);
            return;
        }
        Objects.requireNonNull(handler == null ? transactional : handler, "handler");
        JobKind<?> declared = kinds.declared(kind.name());
        if (declared != null && declared != kind) {
            throw new IllegalArgumentException("the Docket declares another kind named '" + kind.name()
                    + "'; register the handler with that JobKind");
        }
        bind(kind, handler, transactional, kinds.retryPolicy(kind));
    }

    /**
     * Binds {@code handler} or, when it is null, {@code transactional} to the kind named {@code kind}: with
     * the settings of the Docket's declared kind of that name, else with a kind's defaults.
     */
    <T> void add(String kind, Class<T> payloadType, JobHandler<T> handler, TransactionalJobHandler<T> transactional) {
        JobOptionRules.checkKind(kind);
        Objects.requireNonNull(payloadType, "payloadType");
        Objects.requireNonNull(handler == null ? transactional : handler, "handler");
        JobKind<?> declared = kinds.declared(kind);
        JobKind<T> settings = declared != null ? declared.withPayloadType(payloadType)
                : kinds.encrypted(kind) ? JobKind.of(kind, payloadType).encrypted().build()
                : JobKind.of(kind, payloadType).build();
        bind(settings, handler, transactional, kinds.retryPolicy(kind));
    }

    private <T> void bind(JobKind<T> kind, JobHandler<T> handler, TransactionalJobHandler<T> transactional,
                          RetryPolicy retry) {
        if (bindings.containsKey(kind.name())) {
            throw new IllegalArgumentException("a handler for kind '" + kind.name() + "' is already registered");
        }
        bindings.put(kind.name(), new HandlerBinding<>(kind, handler, retry, transactional));
    }

    boolean isEmpty() {
        return bindings.isEmpty();
    }

    /** A copy: the worker's handlers do not change when its builder does. */
    Map<String, HandlerBinding<?>> bindings() {
        return new HashMap<>(bindings);
    }
}
