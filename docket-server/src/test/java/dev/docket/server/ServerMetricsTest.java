package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.PermanentJobFailure;
import dev.docket.RetryPolicy;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.server.metrics.QueueMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
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

    /**
     * The workers are another process's (a second Docket on the schema, without a registry): their
     * outcomes reach the server's one scrape through the cluster's counters, labelled like every metric
     * (one kind named, the others "other"), with the registry's live workers and slots; the per-process
     * counters of the server show none of them.
     */
    @Test
    void oneScrapeOfTheServerCountsTheOutcomesOfWorkersInOtherProcesses() {
        assertThat(docket.metricsKindLabel("resize")).as("the one kind the server names").isEqualTo("resize");
        Docket elsewhere = docket(b -> b.defaultRetryPolicy(new RetryPolicy(2, Duration.ofMillis(1), Duration.ofMillis(1), 0)));
        for (int i = 0; i < 4; i++) {
            elsewhere.enqueue("resize", Map.of("n", i));
        }
        for (int i = 0; i < 3; i++) {
            elsewhere.enqueue("charge", Map.of("n", i), JobOptions.builder().queue("payments").build());
        }
        elsewhere.enqueue("flaky", Map.of());
        AtomicInteger flaky = new AtomicInteger();
        worker(elsewhere, w -> w.queue("default", 3).queue("payments", 2).maintenanceInterval(Duration.ofMillis(20))
                .handler("resize", JsonNode.class, (p, ctx) -> { })
                .handler("charge", JsonNode.class, (p, ctx) -> {
                    throw new PermanentJobFailure("card declined");
                })
                .handler("flaky", JsonNode.class, (p, ctx) -> {
                    if (flaky.incrementAndGet() == 1) {
                        throw new IllegalStateException("try again");
                    }
                }));

        awaitMetrics("docket_cluster_jobs_completed_total{kind=\"resize\",queue=\"default\"} 4.0");
        awaitMetrics("docket_cluster_jobs_completed_total{kind=\"other\",queue=\"default\"} 1.0");
        awaitMetrics("docket_cluster_job_attempts_failed_total{kind=\"other\",queue=\"payments\"} 3.0");
        String text = awaitMetrics("docket_cluster_jobs_dead_total{kind=\"other\",queue=\"payments\"} 3.0");

        assertThat(text).contains("# TYPE docket_cluster_jobs_completed_total counter")
                .contains("# TYPE docket_cluster_job_attempts_failed_total counter")
                .contains("# TYPE docket_cluster_jobs_dead_total counter")
                .contains("docket_cluster_job_attempts_failed_total{kind=\"other\",queue=\"default\"} 1.0")
                .contains("docket_cluster_jobs_dead_total{kind=\"resize\",queue=\"default\"} 0.0")
                .contains("docket_cluster_workers 1.0")
                .contains("docket_cluster_worker_concurrency{queue=\"default\"} 3.0")
                .contains("docket_cluster_worker_concurrency{queue=\"payments\"} 2.0")
                .contains("docket_cluster_handlers_running ");
        assertThat(text).doesNotContain("kind=\"charge\"").doesNotContain("kind=\"flaky\"")
                .doesNotContain("docket_jobs_completed_total{");
    }

    private String awaitMetrics(String line) {
        return Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            server.metrics().refresh();
            return get("/metrics", Role.VIEWER).text();
        }, text -> text.contains(line));
    }
}
