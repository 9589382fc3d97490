package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.server.auth.Role;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code PATCH /api/jobs/{id}}, {@code POST /api/jobs/{id}/run-now} and debounce in {@code POST /api/jobs}: roles,
 * the record of who edited, conflicts for jobs that started or finished, and refusals of malformed, oversized and
 * hostile input (4xx, never 5xx, nothing changed).
 */
class JobEditApiTest extends ServerTest {

    record Parcel(String address) {
    }

    private long scheduled() {
        return docket.enqueue("deliver", new Parcel("1 Old Road"), JobOptions.builder().delay(Duration.ofDays(1)).build());
    }

    private Reply patch(long id, Role role, String body) {
        return send(request("/api/jobs/" + id, role).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(body)).build());
    }

    @Test
    void anOperatorEditsAScheduledJobAndTheEditIsRecordedWithWhoMadeIt() {
        long id = scheduled();
        Reply r = patch(id, Role.OPERATOR, json("payload", Map.of("address", "2 New Street"), "priority", -3,
                "queue", "urgent", "runAt", "2099-01-01T00:00:00Z", "editedBy", "ada"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().get("state").asText()).isEqualTo("scheduled");
        assertThat(r.json().get("queue").asText()).isEqualTo("urgent");
        assertThat(r.json().get("priority").asInt()).isEqualTo(-3);
        assertThat(r.json().get("runAt").asText()).isEqualTo("2099-01-01T00:00:00Z");
        assertThat(r.json().get("editedBy").asText()).isEqualTo("ada (operator, API token)");
        JsonNode job = get("/api/jobs/" + id, Role.OPERATOR).json();
        assertThat(job.get("payload").get("address").asText()).isEqualTo("2 New Street");
        JsonNode edit = job.get("metadata").get("docket.edits").get(0);
        assertThat(edit.get("by").asText()).isEqualTo("ada (operator, API token)");
        assertThat(edit.get("changed").toString()).isEqualTo("[\"payload\",\"runAt\",\"priority\",\"queue\"]");
    }

    @Test
    void runNowMakesAScheduledJobReady() {
        long id = scheduled();
        Reply r = post("/api/jobs/" + id + "/run-now", Role.ADMIN);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().get("state").asText()).isEqualTo("ready");
        assertThat(r.json().get("editedBy").asText()).isEqualTo("admin, API token");
        Reply named = post("/api/jobs/" + id + "/run-now", Role.OPERATOR, json("editedBy", "grace"));
        assertThat(named.status()).as(named.text()).isEqualTo(200);
        assertThat(named.json().get("editedBy").asText()).isEqualTo("grace (operator, API token)");
    }

    @Test
    void rolesThatMayNotEditAreRefused() {
        long id = scheduled();
        assertThat(patch(id, Role.VIEWER, json("priority", 1)).status()).isEqualTo(403);
        assertThat(patch(id, Role.PRODUCER, json("priority", 1)).status()).isEqualTo(403);
        assertThat(post("/api/jobs/" + id + "/run-now", Role.VIEWER).status()).isEqualTo(403);
        assertThat(post("/api/jobs/" + id + "/run-now", Role.PRODUCER).status()).isEqualTo(403);
        assertThat(send(request("/api/jobs/" + id).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"priority\": 1}")).build()).status()).isEqualTo(401);
        assertThat(docket.job(id).orElseThrow().priority()).isZero();
    }

    @Test
    void startedFinishedAndUnknownJobsAreConflictsOrNotFound() throws Exception {
        long id = scheduled();
        docket.cancel(id);
        Reply finished = patch(id, Role.OPERATOR, json("priority", 1));
        assertThat(finished.status()).as(finished.text()).isEqualTo(409);
        assertThat(finished.json().get("error").asText()).isEqualTo("conflict");
        assertThat(finished.json().get("message").asText()).contains("has finished (cancelled)");
        assertThat(post("/api/jobs/" + id + "/run-now", Role.OPERATOR).status()).isEqualTo(409);

        long running = docket.enqueue("deliver", new Parcel("a"));
        db.execute("UPDATE " + schema + ".jobs SET state = 'running', attempt = 1, attempted_at = now(), "
                + "locked_by = 'w', lease_until = now() + interval '1 minute' WHERE id = " + running);
        Reply started = patch(running, Role.OPERATOR, json("payload", Map.of("address", "b")));
        assertThat(started.status()).isEqualTo(409);
        assertThat(started.json().get("message").asText()).contains("has started");
        assertThat(docket.job(running).orElseThrow().payload()).contains("\"a\"");

        assertThat(patch(123_456_789, Role.OPERATOR, json("priority", 1)).status()).isEqualTo(404);
        assertThat(post("/api/jobs/123456789/run-now", Role.OPERATOR).status()).isEqualTo(404);
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    }

    @Test
    void hostileEditsAreClearErrorsAndChangeNothing() {
        long id = scheduled();
        Map<String, Integer> expected = Map.ofEntries(
                Map.entry("{\"payload\": ", 400),
                Map.entry("[]", 400),
                Map.entry("{}", 400),
                Map.entry("{\"payload\": null}", 400),
                Map.entry("{\"surprise\": 1}", 400),
                Map.entry("{\"priority\": 40000}", 400),
                Map.entry("{\"priority\": \"high\"}", 400),
                Map.entry("{\"queue\": \"no spaces\"}", 400),
                Map.entry("{\"queue\": \"\"}", 400),
                Map.entry("{\"runAt\": \"tomorrow\"}", 400),
                Map.entry("{\"runAt\": \"+12000-01-01T00:00:00Z\"}", 400),
                Map.entry("{\"runAt\": \"2030-01-01T00:00:00Z\", \"runNow\": true}", 400),
                Map.entry("{\"priority\": 1, \"editedBy\": \"" + "x".repeat(101) + "\"}", 400),
                Map.entry("{\"priority\": 1, \"editedBy\": \"a\\u202eb\"}", 400),
                Map.entry("{\"payload\": {\"a\": \"\\u0000\"}}", 400),
                Map.entry("{\"payload\": {\"a\": 1, \"a\": 2}}", 400));
        expected.forEach((body, status) -> {
            Reply r = patch(id, Role.ADMIN, body);
            assertThat(r.status()).as("%s -> %s", body, r.text()).isEqualTo(status);
            assertThat(r.json().get("message").asText()).as(body).isNotBlank();
        });
        Reply huge = patch(id, Role.ADMIN, json("payload", Map.of("blob", "x".repeat(300 * 1024))));
        assertThat(huge.status()).as(huge.text()).isEqualTo(413);
        assertThat(patch(id, Role.ADMIN, "not json").status()).isEqualTo(400);
        assertThat(send(request("/api/jobs/abc", Role.ADMIN).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"priority\": 1}")).build()).status()).isEqualTo(400);
        assertThat(post("/api/jobs/" + id + "/run-now", Role.ADMIN, "{\"editedBy\": 5}").status()).isEqualTo(400);

        var job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(job.priority()).isZero();
        assertThat(job.metadata()).doesNotContain("docket.edits");
    }

    @Test
    void enqueueWithDebounceCollapsesIntoOneJob() {
        String body = json("kind", "sync", "payload", Map.of("n", 1), "debounce", Map.of("key", "c-7", "window", "5m"));
        Reply first = post("/api/jobs", Role.PRODUCER, body);
        assertThat(first.status()).as(first.text()).isEqualTo(201);
        Reply second = post("/api/jobs", Role.PRODUCER,
                json("kind", "sync", "payload", Map.of("n", 2), "debounce", Map.of("key", "c-7", "window", "5m")));
        assertThat(second.status()).as(second.text()).isEqualTo(200);
        assertThat(second.json().get("id").asLong()).isEqualTo(first.json().get("id").asLong());
        assertThat(second.json().get("inserted").asBoolean()).isFalse();
        assertThat(docket.job(first.json().get("id").asLong()).orElseThrow().payload()).contains("2");
        assertThat(Instant.parse(second.json().get("runAt").asText())).isAfter(Instant.now().plusSeconds(200));

        for (String bad : new String[] {
                json("kind", "sync", "payload", Map.of(), "debounce", Map.of("key", "k", "window", "-5s")),
                json("kind", "sync", "payload", Map.of(), "debounce", Map.of("key", "k", "window", "0s")),
                json("kind", "sync", "payload", Map.of(), "debounce", Map.of("key", "", "window", "5s")),
                json("kind", "sync", "payload", Map.of(), "debounce", Map.of("key", "x".repeat(513), "window", "5s")),
                json("kind", "sync", "payload", Map.of(), "debounce", Map.of("window", "5s")),
                json("kind", "sync", "payload", Map.of(), "debounce", Map.of("key", "k", "window", "5s", "maxWait", "1s")),
                json("kind", "sync", "payload", Map.of(), "debounce", Map.of("key", "k", "window", "5s", "extra", 1)),
                json("kind", "sync", "payload", Map.of(), "uniqueKey", "u", "debounce", Map.of("key", "k", "window", "5s"))}) {
            Reply r = post("/api/jobs", Role.PRODUCER, bad);
            assertThat(r.status()).as("%s -> %s", bad, r.text()).isEqualTo(400);
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
    }
}
