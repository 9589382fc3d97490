package dev.docket.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.Worker;
import dev.docket.testing.DocketTest;
import dev.docket.testing.HookedDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A worker's endpoint: /health and /ready follow the worker's life and health (starting, healthy,
 * unable to reach the database, recovered, shutting down); every other request is a JSON error without
 * internals, malformed, oversized and hostile ones included.
 */
class WorkerEndpointTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> send(WorkerEndpoint endpoint, String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + path)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private int status(WorkerEndpoint endpoint, String path) throws Exception {
        return send(endpoint, "GET", path).statusCode();
    }

    private JsonNode json(WorkerEndpoint endpoint, String path) throws Exception {
        return JSON.readTree(send(endpoint, "GET", path).body());
    }

    @Test
    void healthAndReadinessFollowTheWorker() throws Exception {
        AtomicBoolean refuse = new AtomicBoolean();
        Docket docket = docket(b -> Docket.builder(new HookedDataSource(dataSource(), () -> {
            if (refuse.get()) {
                throw new SQLException("connection refused (test)");
            }
        }, c -> { })).schema(schema));
        WorkerEndpoint endpoint = closeAfter(WorkerEndpoint.start("127.0.0.1", 0, QueueMetrics.registryFor()));

        assertThat(status(endpoint, "/health")).isEqualTo(503);
        assertThat(json(endpoint, "/health").get("status").asText()).isEqualTo("starting");
        assertThat(status(endpoint, "/ready")).isEqualTo(503);
        assertThat(json(endpoint, "/ready").get("message").asText()).isEqualTo("the worker is starting");
        assertThat(status(endpoint, "/metrics")).isEqualTo(200);

        Worker worker = worker(docket, w -> w.queue("default", 2).lease(Duration.ofSeconds(1)).maintenance(false)
                .handler("k", JsonNode.class, (p, ctx) -> { }));
        endpoint.serve(worker);
        assertThat(status(endpoint, "/health")).isEqualTo(200);
        assertThat(json(endpoint, "/health").get("workerId").asText()).isEqualTo(worker.workerId());
        assertThat(json(endpoint, "/ready").get("status").asText()).isEqualTo("ready");

        refuse.set(true);
        Awaitility.await("unhealthy once the database refuses").atMost(Duration.ofSeconds(30))
                .until(() -> status(endpoint, "/health") == 503);
        JsonNode unhealthy = json(endpoint, "/health");
        assertThat(unhealthy.get("status").asText()).isEqualTo("unhealthy");
        assertThat(unhealthy.get("failingServices").size()).isPositive();
        assertThat(unhealthy.toString()).doesNotContain("connection refused (test)");
        assertThat(json(endpoint, "/ready").get("message").asText()).contains("unhealthy");

        refuse.set(false);
        Awaitility.await("healthy again").atMost(Duration.ofSeconds(30)).until(() -> status(endpoint, "/ready") == 200);

        endpoint.stopping();
        assertThat(status(endpoint, "/ready")).isEqualTo(503);
        assertThat(json(endpoint, "/ready").get("error").asText()).isEqualTo("not_ready");
        assertThat(json(endpoint, "/ready").get("message").asText()).isEqualTo("the worker is shutting down");
        assertThat(status(endpoint, "/metrics")).as("scrapes go on while it drains").isEqualTo(200);
    }

    @Test
    void everythingButItsThreeGetsIsAJsonErrorWithoutInternals() throws Exception {
        WorkerEndpoint endpoint = closeAfter(WorkerEndpoint.start("127.0.0.1", 0, QueueMetrics.registryFor()));

        assertError(send(endpoint, "GET", "/nope"), 404, "not_found");
        assertError(send(endpoint, "POST", "/metrics"), 405, "method_not_allowed");
        assertError(send(endpoint, "DELETE", "/health"), 405, "method_not_allowed");
        assertError(send(endpoint, "GET", "/metrics/" + "a".repeat(20_000)), 414, "uri_too_long");
        assertThat(send(endpoint, "GET", "/metrics?name[]=x&%3Cscript%3E=1").statusCode()).isEqualTo(200);
        HttpResponse<String> traversal = send(endpoint, "GET", "/assets/%2e%2e/%2e%2e/etc/passwd");
        assertThat(traversal.statusCode()).isIn(400, 404);
        assertThat(traversal.body()).doesNotContain("root:");

        String hugeHeader = raw(endpoint, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(64_000)
                + "\r\nConnection: close\r\n\r\n");
        assertThat(hugeHeader).startsWith("HTTP/1.1 431");
        String garbage = raw(endpoint, "\u0001\u0002 NOT HTTP AT ALL\r\n\r\n");
        assertThat(garbage).startsWith("HTTP/1.1 400").doesNotContain("at org.").doesNotContain("Exception");
        String body = raw(endpoint, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello");
        assertThat(body).startsWith("HTTP/1.1 405");
        assertThat(status(endpoint, "/metrics")).as("still serving").isEqualTo(200);
    }

    private static void assertError(HttpResponse<String> r, int status, String code) throws IOException {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(JSON.readTree(r.body()).get("error").asText()).isEqualTo(code);
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("at org.").doesNotContain("at io.");
    }

    /** Sends {@code request} as is on a socket and returns what came back. */
    private static String raw(WorkerEndpoint endpoint, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", endpoint.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
