package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Trace context from a real enqueue to the spans of real executions, through the SDK's in-memory exporter. */
class TracingTest extends DocketTest {

    record Secret(String password) {
    }

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String PAYLOAD_SECRET = "hunter2-do-not-trace";

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .build();
    private final Tracer appTracer = otel.getTracer("app");

    @AfterEach
    void closeSdk() {
        otel.close();
    }

    private Docket traced() {
        return docket(b -> b.openTelemetry(otel).defaultRetryPolicy(
                new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(1), 0)));
    }

    private List<SpanData> consumerSpans(int atLeast) {
        return await().atMost(WAIT).until(() -> exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getKind() == SpanKind.CONSUMER).toList(), spans -> spans.size() >= atLeast);
    }

    @Test
    void eachAttemptIsAChildOfTheSpanThatEnqueued() {
        Docket docket = traced();
        AtomicInteger calls = new AtomicInteger();
        List<SpanContext> seenByHandler = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 2).maintenanceInterval(Duration.ofMillis(50))
                .handler("charge", Secret.class, (s, ctx) -> {
                    seenByHandler.add(Span.current().getSpanContext());
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("card declined");
                    }
                }));

        Span request = appTracer.spanBuilder("POST /orders").startSpan();
        long id;
        try (Scope ignored = request.makeCurrent()) {
            id = docket.enqueue("charge", new Secret(PAYLOAD_SECRET));
        } finally {
            request.end();
        }
        assertThat(docket.job(id).orElseThrow().metadata()).contains("traceparent")
                .contains(request.getSpanContext().getTraceId()).contains(request.getSpanContext().getSpanId());

        List<SpanData> attempts = consumerSpans(2).stream()
                .sorted((a, b) -> Long.compare(attempt(a), attempt(b))).toList();
        assertThat(attempts).hasSize(2);
        for (SpanData span : attempts) {
            assertThat(span.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
            assertThat(span.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
            assertThat(span.getName()).isEqualTo("process charge");
            assertThat(span.getAttributes().get(AttributeKey.longKey("docket.job.id"))).isEqualTo(id);
            assertThat(span.getAttributes().get(AttributeKey.stringKey("docket.job.kind"))).isEqualTo("charge");
            assertThat(span.getAttributes().get(AttributeKey.stringKey("docket.job.queue"))).isEqualTo("default");
            assertThat(span.getAttributes().toString()).doesNotContain(PAYLOAD_SECRET);
        }
        SpanData failed = attempts.get(0);
        assertThat(attempt(failed)).isEqualTo(1);
        assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(failed.getStatus().getDescription()).contains("card declined");
        assertThat(failed.getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
        assertThat(failed.getAttributes().get(AttributeKey.stringKey("docket.job.outcome"))).isEqualTo("retry");
        SpanData succeeded = attempts.get(1);
        assertThat(attempt(succeeded)).isEqualTo(2);
        assertThat(succeeded.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
        assertThat(succeeded.getAttributes().get(AttributeKey.stringKey("docket.job.outcome"))).isEqualTo("completed");
        // The handler runs inside its attempt's span, so its own spans are the attempt's children.
        assertThat(seenByHandler).extracting(SpanContext::getSpanId)
                .containsExactly(failed.getSpanId(), succeeded.getSpanId());
    }

    /**
     * A span's name and its label attributes are the metrics' series: with one kind named, a second kind
     * is {@code other} in both, so span-derived metrics stay as bounded as Docket's; the kind itself stays
     * in {@code docket.job.kind} for searching traces.
     */
    @Test
    void spansCarryTheMetricsQueueAndKindLabelsBoundedTheSameWay() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Docket docket = docket(b -> b.openTelemetry(otel).meterRegistry(registry).metricsKindLimit(1));
        docket.enqueue("first_kind", new Secret("a"), JobOptions.builder().queue("mail").build());
        worker(docket, w -> w.queue("mail", 1).handler("first_kind", Secret.class, (s, ctx) -> { })
                .handler("second_kind", Secret.class, (s, ctx) -> { }));
        consumerSpans(1);
        docket.enqueue("second_kind", new Secret("b"), JobOptions.builder().queue("mail").build());

        List<SpanData> spans = consumerSpans(2);
        for (SpanData span : spans) {
            String kind = span.getAttributes().get(AttributeKey.stringKey("docket.job.kind"));
            String label = span.getAttributes().get(AttributeKey.stringKey("docket.kind"));
            String queue = span.getAttributes().get(AttributeKey.stringKey("docket.queue"));
            assertThat(label).isEqualTo(docket.metricsKindLabel(kind));
            assertThat(span.getName()).isEqualTo("process " + label);
            assertThat(queue).isEqualTo("mail");
            await().atMost(WAIT).untilAsserted(() -> assertThat(registry.find("docket.jobs.completed")
                    .tags("queue", queue, "kind", label).counter()).isNotNull());
        }
        assertThat(spans).extracting(s -> s.getAttributes().get(AttributeKey.stringKey("docket.kind")))
                .containsExactlyInAnyOrder("first_kind", "other");
        assertThat(spans).extracting(SpanData::getName).containsExactlyInAnyOrder("process first_kind", "process other");
    }

    private static long attempt(SpanData span) {
        return span.getAttributes().get(AttributeKey.longKey("docket.job.attempt"));
    }

    @Test
    void withoutASpanAtEnqueueTheAttemptStartsATrace() {
        Docket docket = traced();
        long id = docket.enqueue("charge", new Secret("x"));
        assertThat(docket.job(id).orElseThrow().metadata()).doesNotContain("traceparent");
        worker(docket, w -> w.queue("default", 1).handler("charge", Secret.class, (s, ctx) -> { }));

        SpanData span = consumerSpans(1).getFirst();
        assertThat(span.getParentSpanContext().isValid()).isFalse();
        assertThat(span.getAttributes().get(AttributeKey.longKey("docket.job.id"))).isEqualTo(id);
    }

    @Test
    void aTraceparentTheCallerSetIsKept() {
        Docket docket = traced();
        String own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        Span request = appTracer.spanBuilder("other").startSpan();
        long id;
        try (Scope ignored = request.makeCurrent()) {
            id = docket.enqueue("charge", new Secret("x"), JobOptions.builder().metadata("traceparent", own).build());
        } finally {
            request.end();
        }
        assertThat(docket.job(id).orElseThrow().metadata()).contains(own).doesNotContain(request.getSpanContext().getTraceId());
        worker(docket, w -> w.queue("default", 1).handler("charge", Secret.class, (s, ctx) -> { }));

        SpanData span = consumerSpans(1).getFirst();
        assertThat(span.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
        assertThat(span.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    }

    @Test
    void aPermanentFailureIsRecordedOnTheSpan() {
        Docket docket = traced();
        worker(docket, w -> w.queue("default", 1).handler("charge", Secret.class, (s, ctx) -> {
            throw new PermanentJobFailure("card stolen");
        }));
        docket.enqueue("charge", new Secret("x"));

        SpanData span = consumerSpans(1).getFirst();
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(span.getStatus().getDescription()).contains("card stolen");
        assertThat(span.getAttributes().get(AttributeKey.stringKey("docket.job.outcome"))).isEqualTo("dead");
        assertThat(span.getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
    }

    /** A wait for a signal ends its attempt's span as awaiting_signal; the resumed run's span has the latest progress. */
    @Test
    void aWaitEndsItsSpanAndTheProgressIsOnTheSpan() {
        Docket docket = traced();
        long id = docket.enqueue("charge", new Secret("x"));
        worker(docket, w -> w.queue("default", 1).handler("charge", Secret.class, (s, ctx) -> {
            if (ctx.signal("go", String.class).isEmpty()) {
                ctx.awaitSignal("go");
                return;
            }
            ctx.progress(0.5, "half, with a message the span never gets");
            ctx.progress(0.75, null);
        }));
        await().atMost(WAIT).until(() -> docket.job(id).orElseThrow().state() == JobState.WAITING);
        docket.signal(id, "go", "now");

        List<SpanData> spans = consumerSpans(2);
        assertThat(spans).extracting(s -> s.getAttributes().get(AttributeKey.stringKey("docket.job.outcome")))
                .containsExactly("awaiting_signal", "completed");
        assertThat(spans.get(1).getAttributes().get(AttributeKey.doubleKey("docket.job.progress"))).isEqualTo(0.75);
        assertThat(spans.get(1).getAttributes().toString()).doesNotContain("message the span");
    }
}
