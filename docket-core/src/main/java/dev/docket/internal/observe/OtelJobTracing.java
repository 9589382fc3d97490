package dev.docket.internal.observe;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Outcome;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Traces with the OpenTelemetry API. At enqueue, the current span's context goes into the job's
 * metadata as W3C {@code traceparent} (and {@code tracestate}); each attempt runs in a
 * {@link SpanKind#CONSUMER} span whose parent is that context, with the job's id, kind, queue and
 * attempt as attributes (never its payload), and a failure recorded on it. The span's name and its
 * {@code docket.queue} and {@code docket.kind} attributes are the job's metric labels, the kind bounded
 * as the metrics bound it ({@link KindLabels}), so that span-derived metrics (an OpenTelemetry
 * collector's spanmetrics) have the metrics' series and no more; {@code docket.job.kind} keeps the kind
 * itself for searching traces.
 *
 * <p>Spans go to the {@link OpenTelemetry} given to the builder, else to the global one once the
 * application (or the Java agent) has set it; until then attempts record nothing. The global is
 * never read with {@code GlobalOpenTelemetry.get()}, which would fix it to a no-op before the
 * application sets its own.
 */
final class OtelJobTracing implements JobTracing {

    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";
    private static final String SCOPE = "dev.docket";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("docket.job.outcome");
    /** The metrics' label names, prefixed as span attributes are. */
    private static final AttributeKey<String> QUEUE_LABEL = AttributeKey.stringKey("docket.queue");
    private static final AttributeKey<String> KIND_LABEL = AttributeKey.stringKey("docket.kind");
    /** The latest fraction the handler reported (JobContext.progress); never its message, which is the handler's text. */
    private static final AttributeKey<Double> PROGRESS = AttributeKey.doubleKey("docket.job.progress");
    private static final int MAX_STATUS_CHARS = 200;

    private static final TextMapGetter<JsonNode> METADATA = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(JsonNode carrier) {
            List<String> keys = new ArrayList<>();
            carrier.fieldNames().forEachRemaining(keys::add);
            return keys;
        }

        @Override
        public String get(JsonNode carrier, String key) {
            return carrier == null ? null : carrier.path(key).textValue();
        }
    };

    private final OpenTelemetry given;
    private final KindLabels kinds;
    private volatile Tracer tracer;

    /**
     * @param given the application's OpenTelemetry, or null to use the global one once it is set
     * @param kinds the Docket's kind labels, shared with its metrics
     */
    OtelJobTracing(OpenTelemetry given, KindLabels kinds) {
        this.given = given;
        this.kinds = kinds;
    }

    /** Casts here, so that callers need not name OpenTelemetry's types. */
    static JobTracing of(Object openTelemetry, KindLabels kinds) {
        return new OtelJobTracing((OpenTelemetry) openTelemetry, kinds);
    }

    /**
     * A traceparent the caller put in the metadata is the caller's choice and is kept; otherwise the
     * current span's, when there is a valid one.
     */
    @Override
    public Map<String, String> withTraceContext(Map<String, String> metadata) {
        if (metadata.containsKey(TRACEPARENT) || !Span.current().getSpanContext().isValid()) {
            return metadata;
        }
        Map<String, String> withContext = new TreeMap<>(metadata);
        W3CTraceContextPropagator.getInstance().inject(Context.current(), withContext, Map::put);
        return withContext;
    }

    @Override
    public TracedAttempt start(ClaimedJob job) {
        Tracer t = tracer();
        if (t == null) {
            return null;
        }
        String kindLabel = kinds.label(job.kind());
        Span span = t.spanBuilder("process " + kindLabel)
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(enqueueContext(job.metadata()))
                .setAttribute("messaging.system", "docket")
                .setAttribute("messaging.operation.type", "process")
                .setAttribute("messaging.destination.name", job.queue())
                .setAttribute("messaging.message.id", Long.toString(job.id()))
                .setAttribute("docket.job.id", job.id())
                .setAttribute("docket.job.kind", job.kind())
                .setAttribute("docket.job.queue", job.queue())
                .setAttribute("docket.job.attempt", job.attempt())
                .setAttribute(QUEUE_LABEL, job.queue())
                .setAttribute(KIND_LABEL, kindLabel)
                .startSpan();
        return new Attempt(span, span.makeCurrent());
    }

    private Tracer tracer() {
        Tracer t = tracer;
        if (t == null) {
            OpenTelemetry otel = given != null ? given : GlobalOpenTelemetry.isSet() ? GlobalOpenTelemetry.get() : null;
            if (otel == null) {
                return null;
            }
            t = otel.getTracer(SCOPE);
            tracer = t;
        }
        return t;
    }

    /** The context captured at enqueue; the root context (a new trace) for a job without one. */
    private static Context enqueueContext(String metadata) {
        if (metadata == null || !metadata.contains(TRACEPARENT)) {
            return Context.root();
        }
        try {
            return W3CTraceContextPropagator.getInstance().extract(Context.root(), JSON.readTree(metadata), METADATA);
        } catch (JsonProcessingException e) {
            return Context.root();
        }
    }

    private record Attempt(Span span, Scope scope) implements TracedAttempt {

        @Override
        public void progress(double fraction) {
            span.setAttribute(PROGRESS, fraction);
        }

        @Override
        public void failed(Throwable e) {
            span.recordException(e);
        }

        @Override
        public void end(Outcome outcome) {
            try {
                switch (outcome) {
                    case null -> span.setAttribute(OUTCOME, "awaiting_newer_worker");
                    case Outcome.Completed c -> span.setAttribute(OUTCOME, "completed");
                    case Outcome.Snoozed s -> span.setAttribute(OUTCOME, "snoozed");
                    case Outcome.Released r -> span.setAttribute(OUTCOME, "released");
                    case Outcome.AwaitSignal a -> span.setAttribute(OUTCOME, "awaiting_signal");
                    case Outcome.Retry r -> failure("retry", r.error());
                    case Outcome.Dead d -> failure("dead", d.reason());
                }
            } finally {
                scope.close();
                span.end();
            }
        }

        private void failure(String outcome, String error) {
            span.setAttribute(OUTCOME, outcome);
            String firstLine = error == null ? outcome : error.lines().findFirst().orElse(outcome);
            span.setStatus(StatusCode.ERROR, firstLine.length() <= MAX_STATUS_CHARS ? firstLine
                    : firstLine.substring(0, MAX_STATUS_CHARS));
        }
    }
}
