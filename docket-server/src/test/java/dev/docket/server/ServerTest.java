package dev.docket.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.testing.DocketTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;

/**
 * A {@link DocketServer} on a random port over a fresh schema, with one token per role, and an
 * HTTP client to call it.
 */
public abstract class ServerTest extends DocketTest {

    protected static final ObjectMapper JSON = new ObjectMapper();
    /** The request body limit the tests' server runs with; payloads are limited by Docket (256 KiB). */
    protected static final long MAX_BODY = 1024 * 1024;

    protected final Map<Role, String> tokens = new EnumMap<>(Role.class);
    protected final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    protected Docket docket;
    protected DocketServer server;
    protected TokenStore tokenStore;

    @BeforeEach
    void startServer() {
        docket = docket();
        tokenStore = new TokenStore();
        for (Role role : Role.values()) {
            String token = TokenStore.generate();
            tokens.put(role, token);
            tokenStore.add(role, token);
        }
        server = closeAfter(DocketServer.start(docket, tokenStore, DocketServer.Config.defaults().withPort(0)
                .withMaxBodyBytes(MAX_BODY)));
    }

    /** A response with its body parsed as JSON (or {@code null} when it is not JSON). */
    public record Reply(int status, HttpResponse<byte[]> raw, JsonNode json) {

        public String text() {
            return new String(raw.body(), StandardCharsets.UTF_8);
        }

        public String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    protected HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(Duration.ofSeconds(30));
    }

    protected HttpRequest.Builder request(String path, Role role) {
        return request(path).header("Authorization", "Bearer " + tokens.get(role));
    }

    protected Reply send(HttpRequest request) {
        try {
            HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            JsonNode json;
            try {
                json = JSON.readTree(r.body());
            } catch (IOException e) {
                json = null;
            }
            return new Reply(r.statusCode(), r, json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    protected Reply get(String path, Role role) {
        return send(request(path, role).GET().build());
    }

    protected Reply post(String path, Role role, String json) {
        return send(request(path, role).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    protected Reply put(String path, Role role, String json) {
        return send(request(path, role).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    protected Reply post(String path, Role role) {
        return send(request(path, role).POST(HttpRequest.BodyPublishers.noBody()).build());
    }

    /** A JSON object built from alternating names and values. */
    protected static String json(Object... namesAndValues) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            m.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        try {
            return JSON.writeValueAsString(m);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    protected long liveAndFinishedJobs() {
        return queryLong("SELECT (SELECT count(*) FROM {s}.jobs) + (SELECT count(*) FROM {s}.job_history)"
                + " + (SELECT count(*) FROM {s}.dead_jobs)");
    }
}
