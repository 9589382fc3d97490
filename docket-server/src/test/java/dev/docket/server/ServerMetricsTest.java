package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.server.metrics.QueueMetrics;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code /metrics} of a server whose Docket has the server's registry, as {@code docket serve} builds it. */
class ServerMetricsTest extends ServerTest {

    @Override
    @BeforeEach
    void startServer() {
        docket = docket(b -> b.meterRegistry(QueueMetrics.registryFor()).metricsInterval(Duration.ofMillis(100))
                .metricsKindLimit(1));
        tokenStore = new TokenStore();
        for (Role role : Role.values()) {
            String token = TokenStore.generate();
            tokens.put(role, token);
            tokenStore.add(role, token);
        }
        server = closeAfter(DocketServer.start(docket, tokenStore, DocketServer.Config.defaults().withPort(0)));
    }

    @Test
    void metricsServeTheLibrarysMetersWithJvmAndProcessMetrics() {
        post("/api/jobs", Role.PRODUCER, json("kind", "send_email", "payload", Map.of("to", "do-not-leak@example.com")));
        awaitMetrics("docket_jobs{kind=\"send_email\",queue=\"default\",state=\"ready\"} 1.0");
        // With one kind named, every later kind is "other".
        post("/api/jobs", Role.PRODUCER, json("kind", "waiting", "payload", Map.of(), "queue", "idle"));
        post("/api/jobs", Role.PRODUCER, json("kind", "extra", "payload", Map.of(), "queue", "idle"));
        worker(docket, w -> w.queue("default", 2).handler("send_email", JsonNode.class, (p, ctx) -> { }));

        awaitMetrics("docket_jobs_completed_total{kind=\"send_email\",queue=\"default\"} 1.0");
        awaitMetrics("docket_jobs{kind=\"other\",queue=\"idle\",state=\"ready\"} 2.0");
        server.metrics().refresh();
        String text = get("/metrics", Role.VIEWER).text();

        assertThat(text).contains("# TYPE docket_jobs_completed_total counter")
                .contains("docket_job_pickup_latency_seconds_bucket{kind=\"send_email\",queue=\"default\",le=")
                .contains("docket_job_run_duration_seconds_count{kind=\"send_email\",queue=\"default\"} 1")
                .contains("docket_claim_duration_seconds_bucket{queue=\"default\",le=")
                .contains("docket_queue_lag_seconds{kind=\"other\",queue=\"idle\"}")
                .contains("docket_jobs_table_dead_tuples")
                .contains("docket_worker_concurrency{queue=\"default\"} 2.0")
                .contains("jvm_memory_used_bytes").contains("jvm_threads_live_threads").contains("process_cpu_usage")
                .contains("process_uptime_seconds");
        // The server's own gauges are still there, with the same bounded kind label.
        assertThat(text).contains("docket_dead_jobs_last_24h").contains("docket_pickup_latency_p99_seconds")
                .contains("docket_dead_jobs{kind=\"other\",queue=\"idle\"} 0.0");
        assertThat(text).doesNotContain("kind=\"extra\"").doesNotContain("kind=\"waiting\"");
        assertThat(text).doesNotContain("do-not-leak");
    }

    private void awaitMetrics(String line) {
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> get("/metrics", Role.VIEWER).text().contains(line));
    }
}
