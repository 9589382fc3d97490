package dev.docket.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import dev.docket.QueueStats;
import dev.docket.server.DocketServer;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.testing.DocketTest;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server side of the dashboard over plain HTTP: static assets without a login and under the
 * security headers, the chart history endpoint, and pausing a queue by role.
 */
class DashboardEndpointsTest extends DocketTest {

    private static final String ADMIN = "admin-token-for-endpoint-tests";
    private static final String VIEWER = "viewer-token-for-endpoint-tests";

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private Docket docket;
    private DocketServer server;

    @BeforeEach
    void startServer() {
        docket = docket();
        TokenStore tokens = new TokenStore();
        tokens.add(Role.ADMIN, ADMIN);
        tokens.add(Role.VIEWER, VIEWER);
        server = closeAfter(DocketServer.start(docket, tokens, DocketServer.Config.defaults().withPort(0)));
    }

    private HttpResponse<String> send(String method, String path, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
                .method(method, method.equals("GET") ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString("{}"));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The login page and its scripts load without a session, as UTF-8, under the strict CSP. */
    @Test
    void assetsAreServedWithoutLoginUnderTheSecurityHeaders() throws Exception {
        HttpResponse<String> root = send("GET", "/", null);
        assertThat(root.statusCode()).isEqualTo(302);
        assertThat(root.headers().firstValue("Location")).hasValue("/assets/index.html");
        for (String asset : new String[] {"/assets/index.html", "/assets/app.css", "/assets/js/app.js", "/assets/favicon.svg"}) {
            HttpResponse<String> r = send("GET", asset, null);
            assertThat(r.statusCode()).as(asset).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Security-Policy")).as(asset).hasValueSatisfying(csp ->
                    assertThat(csp).contains("script-src 'self'").contains("style-src 'self'").doesNotContain("unsafe"));
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(r.headers().firstValue("Content-Type")).as(asset).hasValueSatisfying(type ->
                    assertThat(type).doesNotContain("charset=null"));
        }
        assertThat(send("GET", "/assets/js/app.js", null).headers().firstValue("Content-Type").orElseThrow())
                .startsWith("text/javascript").containsIgnoringCase("charset=utf-8");
        String html = send("GET", "/assets/index.html", null).body();
        assertThat(html).doesNotContain("<script>").doesNotContain("style=").doesNotContain("onclick")
                .doesNotContain("http://").doesNotContain("https://");
        assertThat(send("GET", "/assets/no-such-file.js", null).statusCode()).isEqualTo(404);
    }

    /** The chart history needs a login; it holds the metrics refresher's samples, summed per queue. */
    @Test
    void statsHistoryServesTheSampledThroughput() throws Exception {
        assertThat(send("GET", "/api/stats/history", null).statusCode()).isEqualTo(401);
        docket.enqueue("hello", java.util.Map.of("n", 1));
        server.metrics().refresh();
        JsonNode body = Awaitility.await().atMost(Duration.ofSeconds(10)).until(
                () -> json.readTree(send("GET", "/api/stats/history", VIEWER).body()),
                b -> b.path("samples").size() > 0 && b.path("samples").get(b.path("samples").size() - 1).path("queues").size() > 0);
        assertThat(body.path("windowSeconds").asLong()).isEqualTo(3600);
        JsonNode last = body.path("samples").get(body.path("samples").size() - 1);
        assertThat(last.path("secondsAgo").asDouble()).isBetween(0.0, 60.0);
        assertThat(last.path("queues").get(0).path("queue").asText()).isEqualTo("default");
        assertThat(last.path("queues").get(0).has("completedPerMinute")).isTrue();
        assertThat(last.path("queues").get(0).has("failedPerMinute")).isTrue();
    }

    /**
     * The dashboard's throughput (its figures and its charts) is the rate of the cluster's counters, so
     * jobs whose history is not kept count too: 30 jobs completed between two samples, on a Docket that
     * deletes jobs on completion, read as at least 30 a minute (the samples are less than a minute
     * apart), for a kind that has no row anywhere else; the server's metrics serve the backlog gauge
     * for a Docket without its registry.
     */
    @Test
    void throughputIsTheRateOfTheClusterCountersEvenWithoutHistory() throws Exception {
        Docket discarding = docket(b -> b.historyRetention(Duration.ZERO));
        TokenStore tokens = new TokenStore();
        tokens.add(Role.VIEWER, VIEWER);
        DocketServer other = closeAfter(DocketServer.start(discarding, tokens, DocketServer.Config.defaults().withPort(0)));
        other.metrics().refresh();
        discarding.enqueueAll(IntStream.range(0, 30).mapToObj(i -> NewJob.of("discarded", Map.of("n", i))).toList());
        discarding.enqueue("waiting", Map.of(), JobOptions.builder().queue("unserved").build());
        worker(discarding, w -> w.queue("default", 4).handler("discarded", JsonNode.class, (p, ctx) -> { }));
        Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'discarded'") == 0);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history")).isZero();
        other.metrics().refresh();

        JsonNode stats = json.readTree(get(other, "/api/stats").body()).path("queues");
        JsonNode row = null;
        for (JsonNode r : stats) {
            if (r.path("kind").asText().equals("discarded")) {
                row = r;
            }
        }
        assertThat(row).as("a row for the kind from the counters alone: %s", stats).isNotNull();
        assertThat(row.path("completedPerMinute").asLong()).isGreaterThanOrEqualTo(30);
        assertThat(row.path("ready").asLong()).isZero();
        JsonNode samples = json.readTree(get(other, "/api/stats/history").body()).path("samples");
        JsonNode lastSample = samples.get(samples.size() - 1).path("queues");
        assertThat(lastSample.findValues("completedPerMinute").stream().mapToLong(JsonNode::asLong).sum())
                .isGreaterThanOrEqualTo(30);
        String metrics = get(other, "/metrics").body();
        assertThat(metrics).contains("docket_cluster_jobs_completed_total{kind=\"discarded\",queue=\"default\"} 30.0")
                .contains("docket_queue_backlog{queue=\"unserved\"} 1.0")
                .contains("docket_queue_backlog{queue=\"default\"} 0.0");
    }

    /**
     * Once the server has sampled the counters twice, its per-minute figures are theirs alone: a job in the
     * history that no counter counted (written there by hand) makes the history's figure 1 and theirs 0.
     */
    @Test
    void afterTwoSamplesThePerMinuteFiguresAreTheCountersEvenWhenTheyCountedNothing() throws Exception {
        TokenStore tokens = new TokenStore();
        tokens.add(Role.VIEWER, VIEWER);
        Docket other = docket();
        DocketServer second = closeAfter(DocketServer.start(other, tokens, new DocketServer.Config("127.0.0.1", 0,
                256 * 1024, Duration.ofHours(1), Duration.ofHours(1))));
        execute("INSERT INTO {s}.job_history (id, queue, kind, payload, payload_version, priority, state, run_at, attempt, "
                + "max_attempts, metadata, errors, created_at, attempted_at) VALUES (99, 'default', 'by_hand', '{}', 1, 0, "
                + "'completed', now(), 1, 1, '{}', '[]', now(), now())");
        assertThat(other.admin().stats()).singleElement().extracting(QueueStats::completedLastMinute).isEqualTo(1L);
        second.metrics().refresh();
        second.metrics().refresh();

        JsonNode row = json.readTree(get(second, "/api/stats").body()).path("queues").get(0);
        assertThat(row.path("kind").asText()).isEqualTo("by_hand");
        assertThat(row.path("completedPerMinute").asLong()).isZero();
    }

    private HttpResponse<String> get(DocketServer on, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(on.baseUrl() + path)).header("Authorization", "Bearer " + VIEWER)
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Pausing is for operators and admins; the settings show in /api/queues; bad names are a 400. */
    @Test
    void pausingAQueueNeedsTheOperateRole() throws Exception {
        assertThat(send("POST", "/api/queues/default/pause", VIEWER).statusCode()).isEqualTo(403);
        assertThat(send("POST", "/api/queues/default/pause", null).statusCode()).isEqualTo(401);
        HttpResponse<String> paused = send("POST", "/api/queues/default/pause?create=true", ADMIN);
        assertThat(paused.statusCode()).isEqualTo(200);
        assertThat(json.readTree(paused.body()).path("paused").asBoolean()).isTrue();
        JsonNode queues = json.readTree(send("GET", "/api/queues", VIEWER).body()).path("queues");
        assertThat(queues.get(0).path("name").asText()).isEqualTo("default");
        assertThat(queues.get(0).path("paused").asBoolean()).isTrue();
        assertThat(send("POST", "/api/queues/default/resume", ADMIN).statusCode()).isEqualTo(200);
        assertThat(docket.admin().queues()).noneMatch(q -> q.paused());
        HttpResponse<String> bad = send("POST", "/api/queues/no%20spaces%27;--/pause", ADMIN);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json.readTree(bad.body()).path("error").asText()).isEqualTo("bad_request");
    }
}
