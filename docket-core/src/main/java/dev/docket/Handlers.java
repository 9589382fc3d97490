package dev.docket;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.internal.executor.HandlerBinding;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The handlers a {@link Worker.Builder} registers, each bound to the settings of its kind: a
 * {@link JobKind} brings them all; a kind known by name takes the Docket's declared kind of that name,
 * or {@link HandlerOptions} and upcasters given one by one.
 */
final class Handlers {

    private final KindRegistry kinds;
    private final Map<String, HandlerBinding<?>> bindings = new HashMap<>();
    private final Map<String, Map<Integer, UnaryOperator<JsonNode>>> upcasters = new HashMap<>();
    /** Kinds whose handler was registered by name alone, whose upcasters may still be added. */
    private final Set<String> namedOnly = new HashSet<>();

    Handlers(KindRegistry kinds) {
        this.kinds = kinds;
    }

    /** Binds {@code handler} or, when it is null, {@code transactional} to {@code kind}. */
    <T> void add(JobKind<T> kind, JobHandler<T> handler, TransactionalJobHandler<T> transactional) {
        Objects.requireNonNull(kind, "kind");
        if (kind.byName()) {
            add(kind.name(), kind.payloadType(), handler, transactional, HandlerOptions.defaults());
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

    /** Binds {@code handler} or, when it is null, {@code transactional} to the kind named {@code kind}. */
    <T> void add(String kind, Class<T> payloadType, JobHandler<T> handler, TransactionalJobHandler<T> transactional,
                 HandlerOptions options) {
        KindRegistry.checkName(kind);
        Objects.requireNonNull(payloadType, "payloadType");
        Objects.requireNonNull(handler == null ? transactional : handler, "handler");
        Objects.requireNonNull(options, "options");
        JobKind<?> declared = kinds.declared(kind);
        JobKind<T> settings;
        if (declared != null) {
            if (!options.equals(HandlerOptions.defaults())) {
                throw new IllegalArgumentException("kind '" + kind + "' is declared on the Docket: set its lease, "
                        + "timeout and payload version on its JobKind");
            }
            settings = declared.withPayloadType(payloadType);
        } else {
            JobKind.Builder<T> b = JobKind.of(kind, payloadType).payloadVersion(options.payloadVersion())
                    .newerVersionWait(options.newerVersionWait());
            if (options.lease() != null) {
                b.lease(options.lease());
            }
            if (options.timeout() != null) {
                b.timeout(options.timeout());
            }
            settings = b.build();
            for (Map.Entry<Integer, UnaryOperator<JsonNode>> step : upcasters.getOrDefault(kind, Map.of()).entrySet()) {
                settings = settings.withUpcaster(step.getKey(), step.getValue());
            }
        }
        bind(settings, handler, transactional, kinds.retryPolicy(kind));
        if (declared == null) {
            namedOnly.add(kind);
        }
    }

    private <T> void bind(JobKind<T> kind, JobHandler<T> handler, TransactionalJobHandler<T> transactional,
                          RetryPolicy retry) {
        if (bindings.containsKey(kind.name())) {
            throw new IllegalArgumentException("a handler for kind '" + kind.name() + "' is already registered");
        }
        bindings.put(kind.name(), new HandlerBinding<>(kind, handler, retry, transactional));
    }

    void upcaster(String kind, int fromVersion, UnaryOperator<JsonNode> upcaster) {
        KindRegistry.checkName(kind);
        Objects.requireNonNull(upcaster, "upcaster");
        if (fromVersion < 1) {
            throw new IllegalArgumentException("fromVersion must be >= 1, was " + fromVersion);
        }
        if (kinds.declared(kind) != null) {
            throw new IllegalArgumentException("kind '" + kind + "' is declared on the Docket: declare its upcasters "
                    + "on its JobKind");
        }
        HandlerBinding<?> bound = bindings.get(kind);
        if (bound != null && !namedOnly.contains(kind)) {
            throw new IllegalArgumentException("kind '" + kind + "' is registered with a JobKind: declare its "
                    + "upcasters on the JobKind");
        }
        if (upcasters.computeIfAbsent(kind, k -> new HashMap<>()).putIfAbsent(fromVersion, upcaster) != null) {
            throw new IllegalArgumentException("kind '" + kind + "' already has an upcaster from version " + fromVersion);
        }
        if (bound != null) {
            bindings.put(kind, withUpcaster(bound, fromVersion, upcaster));
        }
    }

    private static <T> HandlerBinding<T> withUpcaster(HandlerBinding<T> b, int fromVersion,
                                                      UnaryOperator<JsonNode> upcaster) {
        return b.withKind(b.kind().withUpcaster(fromVersion, upcaster));
    }

    boolean isEmpty() {
        return bindings.isEmpty();
    }

    /** A copy: the worker's handlers do not change when its builder does. */
    Map<String, HandlerBinding<?>> bindings() {
        return new HashMap<>(bindings);
    }
}
