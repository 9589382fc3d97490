package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.server.auth.Role;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** {@code /api/workflows}: enqueue a graph, read it with states, cancel and retry; bad input is a 400. */
class WorkflowsApiTest extends ServerTest {

    record Task(int n) {
    }

    private static final String DIAMOND = """
            {"name": "import 7", "steps": [
              {"name": "fetch", "job": {"kind": "fetch", "payload": {"n": 1}}},
              {"name": "parse", "after": ["fetch"], "job": {"kind": "parse", "payload": {"n": 2}}},
              {"name": "index", "after": ["fetch"], "job": {"kind": "index", "payload": {"n": 3}, "queue": "slow"}},
              {"name": "report", "after": ["parse", "index"], "job": {"kind": "report", "payload": {"n": 4}}}]}""";

    private static void assertBadRequest(Reply r, String messagePart) {
        assertThat(r.status()).as("%s", r.text()).isEqualTo(400);
        assertThat(r.json().get("error").asText()).isEqualTo("bad_request");
        assertThat(r.json().get("message").asText()).contains(messagePart);
    }

    @Test
    void enqueueReadsBackTheGraphWithStatesAndRunsIt() {
        Reply created = post("/api/workflows", Role.PRODUCER, DIAMOND);

        assertThat(created.status()).as("%s", created.text()).isEqualTo(201);
        JsonNode w = created.json();
        long id = w.get("id").asLong();
        assertThat(w.get("name").asText()).isEqualTo("import 7");
        assertThat(w.get("status").asText()).isEqualTo("running");
        assertThat(w.get("steps").get(0).get("name").asText()).isEqualTo("fetch");
        assertThat(w.get("steps").get(0).get("state").asText()).isEqualTo("ready");
        assertThat(w.get("steps").get(3).get("state").asText()).isEqualTo("waiting");
        assertThat(w.get("steps").get(3).get("after").toString()).isEqualTo("[\"parse\",\"index\"]");

        worker(docket, b -> b.queue("default", 2).queue("slow", 1).pollInterval(Duration.ofMillis(50))
                .handler("fetch", Task.class, (t, ctx) -> { }).handler("parse", Task.class, (t, ctx) -> { })
                .handler("index", Task.class, (t, ctx) -> { }).handler("report", Task.class, (t, ctx) -> { }));
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                () -> get("/api/workflows/" + id, Role.VIEWER).json().get("status").asText().equals("completed"));
        assertThat(get("/api/workflows/" + id, Role.VIEWER).json().get("steps").get(3).get("state").asText())
                .isEqualTo("completed");
    }

    @Test
    void cancelAndRetryNeedAnOperatorAndAnExistingWorkflow() {
        long id = post("/api/workflows", Role.PRODUCER, DIAMOND).json().get("id").asLong();

        assertThat(post("/api/workflows/" + id + "/cancel", Role.VIEWER).status()).isEqualTo(403);
        Reply cancelled = post("/api/workflows/" + id + "/cancel", Role.OPERATOR);
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.json().get("steps").asLong()).isEqualTo(4);
        assertThat(get("/api/workflows/" + id, Role.VIEWER).json().get("status").asText()).isEqualTo("cancelled");

        Reply retried = post("/api/workflows/" + id + "/retry", Role.OPERATOR);
        assertThat(retried.json().get("steps").asLong()).isEqualTo(4);
        assertThat(get("/api/workflows/" + id, Role.VIEWER).json().get("status").asText()).isEqualTo("running");

        assertThat(get("/api/workflows/999999", Role.VIEWER).status()).isEqualTo(404);
        assertThat(post("/api/workflows/999999/retry", Role.OPERATOR).status()).isEqualTo(404);
        assertBadRequest(get("/api/workflows/abc", Role.VIEWER), "positive whole number");
        assertBadRequest(get("/api/workflows/-1", Role.VIEWER), "positive whole number");
        assertThat(get("/api/workflows/" + id, null).status()).isEqualTo(401);
    }

    @Test
    void malformedHostileAndCyclicWorkflowsAreRefusedClearly() {
        assertBadRequest(post("/api/workflows", Role.PRODUCER, "{\"name\": \"w\"}"), "the body must be");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, "[1, 2]"), "the body must be");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, "{\"name\": \"w\", \"steps\": []}"), "no steps");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, """
                {"name": "w", "steps": [
                  {"name": "a", "after": ["b"], "job": {"kind": "k", "payload": {}}},
                  {"name": "b", "after": ["a"], "job": {"kind": "k", "payload": {}}}]}"""), "cycle");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, """
                {"name": "w", "steps": [{"name": "a", "after": ["zz"], "job": {"kind": "k", "payload": {}}}]}"""),
                "not a step");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, """
                {"name": "w", "steps": [{"name": "<script>", "job": {"kind": "k", "payload": {}}}]}"""), "step name");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, """
                {"name": "w\\u202e", "steps": [{"name": "a", "job": {"kind": "k", "payload": {}}}]}"""), "workflow name");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, """
                {"name": "w", "steps": [{"name": "a", "job": {"kind": "k"}}]}"""), "steps[0]: payload is required");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, """
                {"name": "w", "steps": [{"name": "a"}]}"""), "steps[0]");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, """
                {"name": "w", "dependencyMode": "any_died", "steps": [{"name": "a", "job": {"kind": "k", "payload": {}}}]}"""),
                "dependencyMode");
        assertBadRequest(post("/api/workflows", Role.PRODUCER, "{\"name\": \"" + "n".repeat(300)
                + "\", \"steps\": [{\"name\": \"a\", \"job\": {\"kind\": \"k\", \"payload\": {}}}]}"), "workflow name");
        assertThat(post("/api/workflows", Role.VIEWER, DIAMOND).status()).isEqualTo(403);
        assertThat(liveAndFinishedJobs()).as("nothing was enqueued").isZero();
    }
}
