package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.Docket;
import dev.docket.JobState;
import dev.docket.PermanentJobFailure;
import dev.docket.Worker;
import dev.docket.server.auth.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Every endpoint of the REST API, called over HTTP against a real server and database. */
class ApiTest extends ServerTest {

    private long enqueue(String kind, Object... more) {
        List<Object> fields = new ArrayList<>(List.of("kind", kind, "payload", Map.of("n", 1)));
        fields.addAll(List.of(more));
        Reply r = post("/api/jobs", Role.PRODUCER, json(fields.toArray()));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json().get("id").asLong();
    }

    /** Runs every job to the dead-letter table with a permanent failure (kind to error), then stops the worker. */
    private void killAll(Map<String, String> errors) {
        Worker.Builder b = docket.worker().queue("default", 8).pollInterval(Duration.ofMillis(50));
        errors.forEach((kind, error) -> b.handler(kind, JsonNode.class, (p, ctx) -> {
            throw new PermanentJobFailure(error);
        }));
        try (Worker w = b.start()) {
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        }
    }

    @Test
    void enqueueAnswers201WithIdAndState() {
        Reply r = post("/api/jobs", Role.PRODUCER, json("kind", "send_email", "payload", Map.of("to", "a@b.c"),
                "queue", "email", "priority", 3, "maxAttempts", 4, "tenant", "acme"));

        assertThat(r.status()).isEqualTo(201);
        assertThat(r.json().get("id").asLong()).isPositive();
        assertThat(r.json().get("inserted").asBoolean()).isTrue();
        assertThat(r.json().get("state").asText()).isEqualTo("ready");
        assertThat(r.json().get("queue").asText()).isEqualTo("email");
        var job = docket.job(r.json().get("id").asLong()).orElseThrow();
        assertThat(job.priority()).isEqualTo(3);
        assertThat(job.maxAttempts()).isEqualTo(4);
        assertThat(job.tenant()).isEqualTo("acme");
    }

    /** A sequence key from the API: the second job of the key waits behind the first, and the job view shows the key. */
    @Test
    void enqueueWithASequenceKeyWaitsBehindTheKeysHead() {
        Reply first = post("/api/jobs", Role.PRODUCER, json("kind", "sync", "payload", Map.of(), "sequenceKey", "order-7"));
        Reply second = post("/api/jobs", Role.PRODUCER, json("kind", "sync", "payload", Map.of(), "sequenceKey", "order-7",
                "haltSequenceOnDeath", true));

        assertThat(first.json().get("state").asText()).isEqualTo("ready");
        assertThat(second.status()).isEqualTo(201);
        assertThat(second.json().get("state").asText()).isEqualTo("waiting");
        Reply shown = get("/api/jobs/" + second.json().get("id").asLong(), Role.ADMIN);
        assertThat(shown.json().get("sequenceKey").asText()).isEqualTo("order-7");
        assertThat(get("/api/jobs?state=waiting", Role.ADMIN).json().get("jobs")).hasSize(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE sequence_halt")).isEqualTo(1);
    }

    /** Discarding the dead job that halts a sequence lets the sequence's next job run; a second discard is a 404. */
    @Test
    void discardingAHaltingDeadJobResumesItsSequence() {
        insertDeadJob(900, "sync", "{}", "boom");
        execute("UPDATE {s}.dead_jobs SET sequence_key = 'order-7', sequence_halt = true");
        long next = docket.enqueue("sync", Map.of(), dev.docket.JobOptions.builder().sequenceKey("order-7").build());
        assertThat(docket.job(next).orElseThrow().state()).isEqualTo(dev.docket.JobState.WAITING);

        assertThat(send(request("/api/dlq/900", Role.PRODUCER).DELETE().build()).status()).isEqualTo(403);
        Reply r = send(request("/api/dlq/900", Role.OPERATOR).DELETE().build());
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().get("state").asText()).isEqualTo("discarded");
        assertThat(docket.job(next).orElseThrow().state()).isEqualTo(dev.docket.JobState.READY);
        assertThat(send(request("/api/dlq/900", Role.OPERATOR).DELETE().build()).status()).isEqualTo(404);
        assertThat(send(request("/api/dlq/x'1", Role.OPERATOR).DELETE().build()).status()).isEqualTo(400);
    }

    @Test
    void delayedJobIsScheduled() {
        Reply r = post("/api/jobs", Role.ADMIN, json("kind", "later", "payload", Map.of(), "delay", "5m"));

        assertThat(r.status()).isEqualTo(201);
        assertThat(r.json().get("state").asText()).isEqualTo("scheduled");
    }

    @Test
    void duplicateUniqueKeyAnswers200WithTheSameJob() {
        String body = json("kind", "report", "payload", Map.of("day", "2026-01-31"), "uniqueKey", "report:2026-01-31");
        Reply first = post("/api/jobs", Role.PRODUCER, body);
        Reply second = post("/api/jobs", Role.PRODUCER, body);

        assertThat(first.status()).isEqualTo(201);
        assertThat(second.status()).isEqualTo(200);
        assertThat(second.json().get("id").asLong()).isEqualTo(first.json().get("id").asLong());
        assertThat(second.json().get("inserted").asBoolean()).isFalse();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
    }

    @Test
    void batchEnqueuesEveryJob() {
        Reply r = post("/api/jobs/batch", Role.PRODUCER, json("jobs", List.of(
                Map.of("kind", "a", "payload", Map.of("i", 1)),
                Map.of("kind", "b", "payload", Map.of("i", 2), "queue", "other"),
                Map.of("kind", "c", "payload", List.of(1, 2, 3), "uniqueKey", "k"))));

        assertThat(r.status()).isEqualTo(201);
        assertThat(r.json().get("jobs")).hasSize(3);
        r.json().get("jobs").forEach(j -> {
            assertThat(j.get("inserted").asBoolean()).isTrue();
            assertThat(docket.job(j.get("id").asLong())).isPresent();
        });
    }

    @Test
    void getShowsThePayloadToOperatorsAndAdminsOnly() {
        long id = enqueue("secret_kind");

        for (Role role : List.of(Role.OPERATOR, Role.ADMIN)) {
            Reply r = get("/api/jobs/" + id, role);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().get("payload").get("n").asInt()).as(role.label()).isEqualTo(1);
            assertThat(r.json().get("kind").asText()).isEqualTo("secret_kind");
            assertThat(r.json().get("state").asText()).isEqualTo("ready");
        }
        for (Role role : List.of(Role.VIEWER, Role.PRODUCER)) {
            Reply r = get("/api/jobs/" + id, role);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().has("payload")).as(role.label()).isFalse();
            assertThat(r.json().get("payloadRedacted").asBoolean()).isTrue();
        }
        assertThat(get("/api/jobs/" + (id + 1000), Role.VIEWER).status()).isEqualTo(404);
    }

    /** A handler's recorded output is shown with the job under the payload's rule, and redacted otherwise. */
    @Test
    void getShowsTheRecordedOutputToRolesThatSeePayloadsOnly() {
        long id = enqueue("charge");
        long silent = enqueue("log");
        Worker.Builder b = docket.worker().queue("default", 2).pollInterval(Duration.ofMillis(50))
                .handler("charge", JsonNode.class, (p, ctx) -> ctx.recordOutput(Map.of("receipt", "r-77")))
                .handler("log", JsonNode.class, (p, ctx) -> { });
        try (Worker w = b.start()) {
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        }

        for (Role role : List.of(Role.OPERATOR, Role.ADMIN)) {
            Reply r = get("/api/jobs/" + id, role);
            assertThat(r.json().get("output").get("receipt").asText()).as(role.label()).isEqualTo("r-77");
            assertThat(r.json().has("outputRedacted")).isFalse();
            assertThat(get("/api/jobs/" + silent, role).json().has("output")).as("none recorded").isFalse();
        }
        for (Role role : List.of(Role.VIEWER, Role.PRODUCER)) {
            Reply r = get("/api/jobs/" + id, role);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().has("output")).as(role.label()).isFalse();
            assertThat(r.text()).doesNotContain("r-77");
            assertThat(r.json().get("outputRedacted").asBoolean()).isTrue();
            assertThat(get("/api/jobs/" + silent, role).json().has("outputRedacted")).as("none recorded").isFalse();
        }
    }

    @Test
    void listPagesWithAKeysetCursorAndFilters() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(enqueue(i % 2 == 0 ? "even" : "odd"));
        }

        Reply page1 = get("/api/jobs?limit=2", Role.VIEWER);
        assertThat(ids(page1)).containsExactly(ids.get(4), ids.get(3));
        assertThat(page1.json().get("jobs").get(0).has("payload")).isFalse();
        Reply page2 = get("/api/jobs?limit=2&after=" + page1.json().get("next").asLong(), Role.VIEWER);
        assertThat(ids(page2)).containsExactly(ids.get(2), ids.get(1));
        Reply page3 = get("/api/jobs?limit=2&after=" + page2.json().get("next").asLong(), Role.VIEWER);
        assertThat(ids(page3)).containsExactly(ids.get(0));
        assertThat(page3.json().get("next").isNull()).isTrue();

        assertThat(ids(get("/api/jobs?kind=odd", Role.VIEWER))).containsExactly(ids.get(3), ids.get(1));
        assertThat(ids(get("/api/jobs?state=ready&queue=default&kind=even", Role.VIEWER)))
                .containsExactly(ids.get(4), ids.get(2), ids.get(0));
        assertThat(ids(get("/api/jobs?state=dead", Role.VIEWER))).isEmpty();
        assertThat(get("/api/jobs?state=bogus", Role.VIEWER).status()).isEqualTo(400);
    }

    private static List<Long> ids(Reply r) {
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        List<Long> ids = new ArrayList<>();
        r.json().get("jobs").forEach(j -> ids.add(j.get("id").asLong()));
        return ids;
    }

    @Test
    void cancelAnswers200ThenConflict() {
        long id = enqueue("cancel_me");

        Reply first = post("/api/jobs/" + id + "/cancel", Role.OPERATOR);
        Reply second = post("/api/jobs/" + id + "/cancel", Role.OPERATOR);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.json().get("state").asText()).isEqualTo("cancelled");
        assertThat(second.status()).isEqualTo(409);
        assertThat(second.json().get("error").asText()).isEqualTo("conflict");
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        assertThat(post("/api/jobs/999999/cancel", Role.OPERATOR).status()).isEqualTo(404);
    }

    @Test
    void retryReplaysADeadJob() {
        long id = enqueue("doomed");
        killAll(Map.of("doomed", "no such customer"));
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.DEAD);

        Reply r = post("/api/jobs/" + id + "/retry", Role.OPERATOR);

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().get("state").asText()).isEqualTo("ready");
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(post("/api/jobs/" + id + "/retry", Role.OPERATOR).status()).isEqualTo(409);
    }

    /** Metadata tags and a period-held unique key travel through the API. */
    @Test
    void enqueueTakesMetadataAndAUniquePeriod() {
        Reply first = post("/api/jobs", Role.PRODUCER, "{\"kind\":\"digest\",\"payload\":{},\"uniqueKey\":\"d:1\","
                + "\"uniqueFor\":\"1d\",\"metadata\":{\"traceId\":\"abc-123\"}}");
        assertThat(first.status()).as(first.text()).isEqualTo(201);
        long id = first.json().get("id").asLong();
        assertThat(get("/api/jobs/" + id, Role.VIEWER).json().get("metadata").get("traceId").asText()).isEqualTo("abc-123");
        docket.cancel(id);
        Reply again = post("/api/jobs", Role.PRODUCER, "{\"kind\":\"digest\",\"payload\":{},\"uniqueKey\":\"d:1\","
                + "\"uniqueFor\":\"1d\"}");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().get("id").asLong()).isEqualTo(id);
        assertThat(post("/api/jobs", Role.PRODUCER, "{\"kind\":\"k\",\"payload\":{},\"metadata\":{\"n\":1}}").status())
                .isEqualTo(400);
        assertThat(post("/api/jobs", Role.PRODUCER, "{\"kind\":\"k\",\"payload\":{},\"uniqueFor\":\"1d\"}").status())
                .isEqualTo(400);
    }

    @Test
    void deadLetterListFiltersByKindAndError() {
        long a = enqueue("charge_card");
        long b = enqueue("webhook");
        killAll(Map.of("charge_card", "card declined: expired", "webhook", "endpoint timed out"));

        assertThat(ids(get("/api/dlq", Role.VIEWER))).containsExactly(b, a);
        assertThat(ids(get("/api/dlq?kind=charge_card", Role.VIEWER))).containsExactly(a);
        assertThat(ids(get("/api/dlq?errorContains=TIMED%20OUT", Role.VIEWER))).containsExactly(b);
        assertThat(ids(get("/api/dlq?kind=webhook&errorContains=declined", Role.VIEWER))).isEmpty();
        JsonNode row = get("/api/dlq?kind=charge_card", Role.VIEWER).json().get("jobs").get(0);
        assertThat(row.get("state").asText()).isEqualTo("dead");
        assertThat(row.get("errorCount").asInt()).isEqualTo(1);
        JsonNode groups = get("/api/dlq/groups", Role.VIEWER).json().get("groups");
        assertThat(groups).hasSize(2);
        assertThat(groups.findValuesAsText("kind")).containsExactlyInAnyOrder("charge_card", "webhook");
        JsonNode declined = get("/api/dlq/groups?kind=charge_card", Role.VIEWER).json().get("groups");
        assertThat(declined).hasSize(1);
        assertThat(declined.get(0).get("error").asText()).contains("card declined: expired");
        assertThat(declined.get(0).get("count").asLong()).isEqualTo(1);
        assertThat(get("/api/dlq/groups?limit=0", Role.VIEWER).status()).isEqualTo(400);

        Reply retried = post("/api/dlq/" + a + "/retry", Role.OPERATOR);
        assertThat(retried.status()).isEqualTo(200);
        assertThat(docket.job(a).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(post("/api/dlq/" + a + "/retry", Role.OPERATOR).status()).isEqualTo(404);
    }

    @Test
    void bulkReplayKeepsToItsRate() {
        for (int i = 0; i < 6; i++) {
            enqueue("bulk");
        }
        enqueue("other");
        killAll(Map.of("bulk", "boom", "other", "boom"));
        // The maintenance leader carries replays out.
        closeAfter(docket.worker().maintenanceInterval(Duration.ofMillis(100)).start());

        Reply accepted = post("/api/dlq/retry", Role.OPERATOR, json("kind", "bulk", "ratePerSecond", 3));

        assertThat(accepted.status()).as(accepted.text()).isEqualTo(202);
        assertThat(accepted.json().get("ratePerSecond").asInt()).isEqualTo(3);
        JsonNode done = Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                .until(() -> get("/api/dlq/replays/" + accepted.json().get("id").asLong(), Role.VIEWER).json(),
                        s -> s.get("state").asText().equals("done"));
        // By the database clock (each replayed job is ready from its replay's now()): 6 jobs at 3 a second
        // cannot all come back within the same second.
        assertThat(queryLong("SELECT (extract(epoch FROM max(run_at) - min(run_at)) * 1000)::bigint FROM {s}.jobs "
                + "WHERE kind = 'bulk'")).as("ms between the first and the last replay").isGreaterThanOrEqualTo(900);
        assertThat(done.get("matched").asInt()).isEqualTo(6);
        assertThat(done.get("replayed").asInt()).isEqualTo(6);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'bulk'")).isEqualTo(6);
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE kind = 'other'")).isEqualTo(1);
        assertThat(get("/api/dlq/replays/999", Role.VIEWER).status()).isEqualTo(404);
    }

    @Test
    void statsHaveOneRowPerQueueAndKind() {
        enqueue("thumbnail");
        enqueue("thumbnail");
        enqueue("send_email", "queue", "email", "delay", "1h");

        Reply r = get("/api/stats", Role.VIEWER);

        assertThat(r.status()).isEqualTo(200);
        JsonNode queues = r.json().get("queues");
        assertThat(queues).hasSize(2);
        for (JsonNode row : queues) {
            assertThat(row.fieldNames()).toIterable().containsExactly("queue", "kind", "scheduled", "ready", "running",
                    "overdue", "backlog", "lagSeconds", "completedPerMinute", "failedPerMinute", "dead", "deadLast24h",
                    "pickupP50Millis", "pickupP99Millis");
        }
        JsonNode thumbnails = find(queues, "thumbnail");
        assertThat(thumbnails.get("queue").asText()).isEqualTo("default");
        assertThat(thumbnails.get("ready").asLong()).isEqualTo(2);
        assertThat(thumbnails.get("backlog").asLong()).isEqualTo(2);
        assertThat(find(queues, "send_email").get("scheduled").asLong()).isEqualTo(1);
        assertThat(find(queues, "send_email").get("overdue").asLong()).isZero();
        assertThat(find(queues, "send_email").get("backlog").asLong()).isZero();
    }

    private static JsonNode find(JsonNode rows, String kind) {
        for (JsonNode row : rows) {
            if (row.get("kind").asText().equals(kind)) {
                return row;
            }
        }
        throw new AssertionError("no row for " + kind + " in " + rows);
    }

    @Test
    void healthAndReadiness() {
        Reply health = send(request("/health").GET().build());
        Reply ready = send(request("/ready").GET().build());

        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().get("status").asText()).isEqualTo("ok");
        assertThat(ready.status()).isEqualTo(200);
        assertThat(ready.json().get("status").asText()).isEqualTo("ready");
        assertThat(ready.json().get("schemaVersion").asInt()).isEqualTo(Docket.supportedSchemaVersion());
    }

    @Test
    void notReadyOnAnUnmigratedSchema() {
        Docket unmigrated = closeAfter(Docket.builder(dataSource()).schema(schema + "_new").build());
        DocketServer other = closeAfter(DocketServer.start(unmigrated, tokenStore, DocketServer.Config.defaults().withPort(0)));

        Reply r = send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(other.baseUrl() + "/ready")).GET().build());

        assertThat(r.status()).isEqualTo(503);
        assertThat(r.json().get("error").asText()).isEqualTo("not_ready");
        assertThat(r.json().get("message").asText()).contains("version 0").contains("docket migrate");
    }

    @Test
    void metricsHaveQueueAndKindLabelsAndNoPayloads() {
        post("/api/jobs", Role.PRODUCER, json("kind", "send_email", "payload", Map.of("to", "do-not-leak@example.com")));
        server.metrics().refresh();

        Reply r = get("/metrics", Role.VIEWER);

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("Content-Type")).startsWith("text/plain");
        assertThat(r.text()).contains("docket_jobs{kind=\"send_email\",queue=\"default\",state=\"ready\"} 1.0");
        assertThat(r.text()).doesNotContain("do-not-leak");
        assertThat(send(request("/metrics").GET().build()).status()).isEqualTo(401);
    }

    @Test
    void queuesArePausedResumedAndCapped() {
        Reply paused = post("/api/queues/email/pause?create=true", Role.OPERATOR);
        Reply limits = send(request("/api/queues/email/limits", Role.ADMIN).header("Content-Type", "application/json")
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(json("maxRunning", 5, "tenantMaxRunning", 2)))
                .build());
        JsonNode listed = get("/api/queues", Role.VIEWER).json();

        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.json().get("paused").asBoolean()).isTrue();
        assertThat(limits.status()).as(limits.text()).isEqualTo(200);
        JsonNode email = listed.get("queues").get(0);
        assertThat(email.get("name").asText()).isEqualTo("email");
        assertThat(email.get("paused").asBoolean()).isTrue();
        assertThat(email.get("maxRunning").asInt()).isEqualTo(5);
        assertThat(email.get("tenantMaxRunning").asInt()).isEqualTo(2);
        assertThat(listed.get("runningByTenant").isArray()).isTrue();

        assertThat(post("/api/queues/email/resume", Role.OPERATOR).json().get("paused").asBoolean()).isFalse();
        assertThat(get("/api/queues", Role.VIEWER).json().get("queues").get(0).get("paused").asBoolean()).isFalse();
        assertThat(post("/api/queues/email/pause", Role.VIEWER).status()).isEqualTo(403);
        assertThat(post("/api/queues/email/pause", Role.PRODUCER).status()).isEqualTo(403);
    }

    /** A misspelt queue is a 404, not a new queue; ?create=true makes one on purpose; a queue with jobs exists. */
    @Test
    void anUnknownQueueIsNotFoundUnlessCreated() {
        String limits = json("maxRunning", 3);
        Reply pause = post("/api/queues/emial/pause", Role.OPERATOR);
        assertThat(pause.status()).isEqualTo(404);
        assertThat(pause.json().get("error").asText()).isEqualTo("not_found");
        assertThat(pause.json().get("message").asText()).contains("?create=true");
        assertThat(post("/api/queues/emial/resume", Role.OPERATOR).status()).isEqualTo(404);
        assertThat(put("/api/queues/emial/limits", Role.OPERATOR, limits).status()).isEqualTo(404);
        assertThat(post("/api/queues/emial/pause?create=false", Role.OPERATOR).status()).isEqualTo(404);
        assertThat(post("/api/queues/emial/pause?create=yes", Role.OPERATOR).status()).isEqualTo(400);
        assertThat(docket.admin().queues()).isEmpty();

        enqueue("anything");
        assertThat(post("/api/queues/default/pause", Role.OPERATOR).status()).as("a queue with a job").isEqualTo(200);
        assertThat(put("/api/queues/fresh/limits?create=true", Role.OPERATOR, limits).status()).isEqualTo(200);
        assertThat(post("/api/queues/fresh/resume", Role.OPERATOR).status()).as("a queue with settings").isEqualTo(200);
    }

    /** The OpenAPI document is public, as the README says: it describes the API and holds no data. */
    @Test
    void servesItsOpenApiDocument() throws Exception {
        Reply r = send(request("/api/openapi.json").GET().build());
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "README.md"));
        assertThat(readme).contains("Every request but `/health`, `/ready`, `/api/openapi.json` and the login needs a bearer token");
        assertThat(server.routes()).contains(new DocketServer.Route("GET", "/api/openapi.json", dev.docket.server.api.Access.PUBLIC));

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("openapi").asText()).startsWith("3.1");
        assertThat(r.json().get("paths").has("/api/jobs")).isTrue();
    }
}
