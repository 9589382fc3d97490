package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.JobState;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code docket worker --metrics-address}: the worker serves its own /metrics (its job counters, its
 * JVM, none of the database-read gauges), /health and /ready while it runs, and says where; without
 * the option it listens on nothing. Malformed, hostile and oversized addresses are one line and exit 2;
 * an address in use is one line and exit 1, before any job is claimed.
 */
class WorkerMetricsCliTest extends DocketTest {

    private static final Pattern METRICS_URL = Pattern.compile("metrics at (http://127\\.0\\.0\\.1:(\\d+))/metrics");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private String[] db(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", db.jdbcUrl(), "--schema", schema));
        return all.toArray(String[]::new);
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aWorkerWithAMetricsAddressServesItsOwnMetricsHealthAndReadiness() throws Exception {
        Docket docket = docket();
        CliRunner cli = new CliRunner(Map.of());
        WorkerCommand command = cli.command("worker");
        AtomicInteger exit = new AtomicInteger(-1);
        Thread thread = Thread.ofPlatform().start(() -> exit.set(cli.run(db("worker", "--queue", "default=3", "--lease", "3s",
                "--shutdown-grace", "1s", "--metrics-address", "127.0.0.1:0")).exit()));
        try {
            Matcher url = Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> METRICS_URL.matcher(cli.out.toString()), Matcher::find);
            String base = url.group(1);
            for (int i = 0; i < 3; i++) {
                docket.enqueue("thumbnail", new DemoHandlers.Thumbnail("img-" + i, 320));
            }
            docket.enqueue("thumbnail", new DemoHandlers.Thumbnail("broken", 0));
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> get(base + "/metrics").body()
                    .contains("docket_jobs_completed_total{kind=\"thumbnail\",queue=\"default\"} 3.0"));

            HttpResponse<String> metrics = get(base + "/metrics");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain");
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> get(base + "/metrics").body()
                    .contains("docket_jobs_dead_total{kind=\"thumbnail\",queue=\"default\"} 1.0"));
            assertThat(get(base + "/metrics").body()).contains("docket_worker_concurrency{queue=\"default\"} 3.0")
                    .contains("docket_job_run_duration_seconds_count{kind=\"thumbnail\",queue=\"default\"} 4")
                    .contains("jvm_memory_used_bytes").contains("process_uptime_seconds")
                    .doesNotContain("docket_jobs{").doesNotContain("docket_queue_backlog")
                    .doesNotContain("docket_cluster_").doesNotContain("img-").doesNotContain("broken");
            HttpResponse<String> health = get(base + "/health");
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            JsonNode h = new ObjectMapper().readTree(health.body());
            assertThat(h.get("status").asText()).isEqualTo("ok");
            assertThat(h.get("workerId").asText()).isEqualTo(docket.admin().workers().getFirst().id());
            assertThat(h.has("lastErrors")).as("error texts stay in the log").isFalse();
            HttpResponse<String> ready = get(base + "/ready");
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("{\"status\":\"ready\"}");
            assertThat(docket.admin().workers().getFirst().finishedLastMinute()).isBetween(0L, 4L);
        } finally {
            command.stop();
            thread.join(Duration.ofSeconds(30));
        }
        assertThat(exit.get()).as(cli.err.toString()).isZero();
        assertThat(docket.admin().jobs(dev.docket.JobQuery.all().withState(JobState.DEAD))).hasSize(1);
    }

    /**
     * A worker given a long shutdown grace (a pod whose jobs run 20 minutes) keeps the JVM alive at SIGTERM
     * for the grace and its cleanup, not for the commands' default 90 s, which would cut the grace short.
     */
    @Test
    void atSigtermTheJvmWaitsForTheWholeShutdownGrace() throws Exception {
        docket();
        CliRunner cli = new CliRunner(Map.of());
        WorkerCommand command = cli.command("worker");
        AtomicInteger exit = new AtomicInteger(-1);
        Thread thread = Thread.ofPlatform().start(() -> exit.set(cli.run(db("worker", "--shutdown-grace", "20m")).exit()));
        try {
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> cli.out.toString().contains("gracefully."));
            assertThat(command.lifetime.cleanupLimit()).isEqualTo(Duration.ofMinutes(21));
        } finally {
            command.stop();
            thread.join(Duration.ofSeconds(30));
        }
        assertThat(exit.get()).as(cli.err.toString()).isZero();
        assertThat(new Lifetime().cleanupLimit()).as("other commands").isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void malformedHostileAndOversizedAddressesAreOneLineAndExitTwo() {
        docket();
        for (String bad : List.of("9400", "127.0.0.1", "127.0.0.1:", ":9400", "127.0.0.1:65536", "127.0.0.1:99999999999",
                "127.0.0.1:-1", "http://127.0.0.1:9400", "127.0.0.1:9400/metrics", "host name:9400", "127.0.0.1:94 00",
                "127.0.0.1:9400;rm -rf /", "[::1:9400", "[zz::1]:9400", "h\u0000st:9400", "h\nst:9400", "\u202Ehost:9400",
                "x".repeat(300) + ":9400", "a:" + "9".repeat(100_000))) {
            Run r = CliRunner.run(Map.of(), db("worker", "--metrics-address", bad));
            assertFails(r, 2, "--metrics-address");
            assertThat(r.err()).doesNotContain("\u0000").doesNotContain("x".repeat(100));
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.workers")).as("no worker started").isZero();
    }

    @Test
    void anAddressInUseIsOneLineAndExitOneBeforeAnyWorkStarts() throws Exception {
        docket();
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Run r = CliRunner.run(Map.of(), db("worker", "--metrics-address", "127.0.0.1:" + taken.getLocalPort()));
            assertFails(r, 1, "cannot serve metrics on 127.0.0.1:" + taken.getLocalPort());
            assertThat(r.err()).containsIgnoringCase("in use");
        }
        Run unknownHost = CliRunner.run(Map.of(), db("worker", "--metrics-address", "no-such-host.invalid:9400"));
        assertFails(unknownHost, 1, "cannot serve metrics on no-such-host.invalid:9400");
        assertThat(queryLong("SELECT count(*) FROM {s}.workers")).as("no worker started").isZero();
    }
}
