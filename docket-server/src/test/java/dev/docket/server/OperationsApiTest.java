package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.JobOptions;
import dev.docket.Worker;
import dev.docket.server.auth.Role;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** GET /api/doctor, /api/workers, /api/jobs/{id}/explain, /api/slos, strictKinds, and the SLO gauges. */
class OperationsApiTest extends ServerTest {

    record Task(int n) {
    }

    private Worker serve(String queue, String kind) {
        return worker(docket, w -> w.queue(queue, 2).handler(kind, Task.class, (t, ctx) -> { }));
    }

    private static void assertError(Reply r, int status, String code, String messagePart) {
        assertThat(r.status()).as("%s", r.text()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).isEqualTo(code);
        assertThat(r.json().get("message").asText()).contains(messagePart);
    }

    @Test
    void doctorAnswersTheReportWithStatusExitCodeFindingsAndWorkers() {
        Worker worker = serve("default", "send");
        docket.enqueue("render", new Task(1), JobOptions.builder().queue("reports").build());

        Reply r = get("/api/doctor", Role.VIEWER);

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("status").asText()).isEqualTo("problem");
        assertThat(r.json().get("exitCode").asInt()).isEqualTo(2);
        JsonNode first = r.json().get("findings").get(0);
        assertThat(first.get("severity").asText()).isEqualTo("problem");
        assertThat(first.get("check").asText()).isEqualTo("unserved_kinds");
        assertThat(first.get("subject").asText()).isEqualTo("kind render on queue reports");
        assertThat(first.get("fix").asText()).contains("--queue reports");
        assertThat(r.json().get("workers").get(0).get("id").asText()).isEqualTo(worker.workerId());
        assertThat(r.json().get("workers").get(0).get("queues").get("default").asInt()).isEqualTo(2);
    }

    @Test
    void doctorRefusesABadThreshold() {
        assertError(get("/api/doctor?longTransaction=soon", Role.VIEWER), 400, "bad_request", "longTransaction");
        assertError(get("/api/doctor?longTransaction=2d", Role.VIEWER), 400, "bad_request", "at most 1d");
        assertThat(get("/api/doctor?longTransaction=0s", Role.VIEWER).status()).isEqualTo(200);
        assertThat(get("/api/doctor", null).status()).isEqualTo(401);
    }

    @Test
    void workersListsTheRegistry() {
        Worker worker = serve("default", "send");

        JsonNode w = get("/api/workers", Role.VIEWER).json().get("workers").get(0);

        assertThat(w.get("id").asText()).isEqualTo(worker.workerId());
        assertThat(w.get("kinds").get("send").asInt()).isEqualTo(1);
        assertThat(w.get("live").asBoolean()).isTrue();
        assertThat(w.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(w.get("concurrency").asInt()).isEqualTo(2);
        assertThat(w.get("handlersRunning").asInt()).isZero();
        assertThat(w.get("finishedLastMinute").asLong()).isZero();
        assertThat(w.get("failedLastMinute").asLong()).isZero();
        assertThat(w.get("heartbeatAgeSeconds").asDouble()).isBetween(0.0, 60.0);
    }

    /**
     * GET /api/workers takes no parameters: hostile, malformed and oversized query strings change nothing
     * (the same list), and nothing of them comes back; a write method is a 405, no token a 401.
     */
    @Test
    void workersIgnoresHostileQueryStringsAndRefusesOtherMethods() {
        Worker worker = serve("default", "send");
        String expected = get("/api/workers", Role.VIEWER).json().get("workers").get(0).get("id").asText();
        assertThat(expected).isEqualTo(worker.workerId());
        for (String query : List.of("?live=maybe", "?id=%27%3B%20DROP%20TABLE%20jobs%3B--", "?x=%3Cscript%3E",
                "?limit=-1&limit=99999999999999999999", "?" + "a".repeat(6000) + "=1", "?%F0%9F%92%A9=%00")) {
            Reply r = get("/api/workers" + query, Role.VIEWER);
            if (r.status() == 200) {
                assertThat(r.json().get("workers").get(0).get("id").asText()).as(query).isEqualTo(expected);
                assertThat(r.text()).doesNotContain("script").doesNotContain("DROP");
            } else {
                assertThat(r.status()).as("%s: %s", query, r.text()).isIn(400, 414, 431);
                assertThat(r.json().get("error").asText()).isNotBlank();
            }
        }
        assertThat(post("/api/workers", Role.ADMIN, "{}").status()).isEqualTo(405);
        assertThat(send(request("/api/workers").GET().build()).status()).isEqualTo(401);
    }

    @Test
    void explainSaysWhyAJobWaitsAnd404sOrRefusesOtherwise() {
        docket.admin().pauseQueue("default");
        serve("default", "send");
        long id = docket.enqueue("send", new Task(1));

        Reply r = get("/api/jobs/" + id + "/explain", Role.VIEWER);

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("state").asText()).isEqualTo("ready");
        assertThat(r.json().get("summary").asText()).isEqualTo("Queue default is paused: nothing is claimed from it "
                + "until it is resumed.");
        assertThat(r.json().get("reasons").get(0).get("code").asText()).isEqualTo("queue_paused");
        assertError(get("/api/jobs/" + (id + 1000) + "/explain", Role.VIEWER), 404, "not_found", "no job");
        assertError(get("/api/jobs/abc/explain", Role.VIEWER), 400, "bad_request", "positive whole number");
        assertError(get("/api/jobs/-1/explain", Role.VIEWER), 400, "bad_request", "positive whole number");
        assertError(get("/api/jobs/99999999999999999999/explain", Role.VIEWER), 400, "bad_request", "positive whole number");
    }

    @Test
    void slosAreSetListedAndClearedByOperatorsAndReadByAnyone() {
        assertThat(put("/api/slos", Role.OPERATOR, json("queue", "email", "lagSeconds", 30)).status()).isEqualTo(200);
        Reply set = put("/api/slos", Role.ADMIN, json("kind", "send email", "pickupP99Seconds", 0.25));
        assertThat(set.status()).isEqualTo(200);
        assertThat(set.json().get("slos")).hasSize(2);

        JsonNode slos = get("/api/slos", Role.VIEWER).json().get("slos");
        assertThat(slos.get(0).get("target").asText()).isEqualTo("kind_pickup_p99");
        assertThat(slos.get(0).get("name").asText()).isEqualTo("send email");
        assertThat(slos.get(0).get("objectiveSeconds").asDouble()).isEqualTo(0.25);
        assertThat(slos.get(1).get("objectiveSeconds").asDouble()).isEqualTo(30);

        assertThat(put("/api/slos", Role.OPERATOR, "{\"queue\": \"email\", \"lagSeconds\": null}").status()).isEqualTo(200);
        assertThat(docket.admin().slos()).hasSize(1);
        assertError(put("/api/slos", Role.VIEWER, json("queue", "email", "lagSeconds", 30)), 403, "forbidden", "");
        assertError(put("/api/slos", Role.PRODUCER, json("queue", "email", "lagSeconds", 30)), 403, "forbidden", "");
    }

    @Test
    void sloBodiesThatAreMalformedOversizedOrHostileAre400sAndChangeNothing() {
        String[][] bad = {
                {"{\"queue\": \"email\"}", "lagSeconds is required"},
                {"{\"queue\": \"email\", \"lagSeconds\": \"30\"}", "must be a number of seconds"},
                {"{\"queue\": \"email\", \"lagSeconds\": 0}", "more than 0"},
                {"{\"queue\": \"email\", \"lagSeconds\": -5}", "more than 0"},
                {"{\"queue\": \"email\", \"lagSeconds\": 1e400}", "at most 2592000"},
                {"{\"queue\": \"email\", \"lagSeconds\": 1e-12}", "at least 0.000000001"},
                {"{\"queue\": \"email\", \"pickupP99Seconds\": 1}", "pickupP99Seconds is not an objective of a queue"},
                {"{\"kind\": \"k\", \"lagSeconds\": 1}", "lagSeconds is not an objective of a kind"},
                {"{\"queue\": \"email\", \"kind\": \"k\", \"lagSeconds\": 1}", "exactly one of queue and kind"},
                {"{\"lagSeconds\": 1}", "exactly one of queue and kind"},
                {"{\"queue\": \"bad queue!\", \"lagSeconds\": 1}", "queue"},
                {"{\"kind\": \"x\\ud800\", \"pickupP99Seconds\": 1}", "kind"},
                {"{\"kind\": \"a\\u0000b\", \"pickupP99Seconds\": 1}", "kind"},
                {"{\"queue\": \"email\", \"lagSeconds\": 1, \"lagSeconds\": 2}", ""},
                {"{\"queue\": \"email\", \"lagSeconds\": 1, \"extra\": true}", "unknown field"},
                {"[1, 2]", ""},
                {"not json", ""},
                {"{\"queue\": \"" + "q".repeat(200) + "\", \"lagSeconds\": 1}", "queue"},
        };
        for (String[] b : bad) {
            Reply r = put("/api/slos", Role.ADMIN, b[0]);
            assertThat(r.status()).as("%s -> %s", b[0], r.text()).isEqualTo(400);
            assertThat(r.json().get("error").asText()).isEqualTo("bad_request");
            assertThat(r.json().get("message").asText()).as(b[0]).contains(b[1]);
        }
        Reply huge = put("/api/slos", Role.ADMIN, "{\"queue\": \"" + "q".repeat((int) MAX_BODY) + "\"}");
        assertThat(huge.status()).isEqualTo(413);
        assertThat(docket.admin().slos()).isEmpty();
    }

    @Test
    void strictKindsRefusesAKindNoLiveWorkerServesWith422AndEnqueuesNothing() {
        serve("default", "send");

        Reply typo = post("/api/jobs?strictKinds=true", Role.PRODUCER, json("kind", "sned", "payload", java.util.Map.of()));
        assertError(typo, 422, "unserved_kind", "no live worker serves kind 'sned' on queue 'default' (strictKinds)");
        Reply otherQueue = post("/api/jobs", Role.PRODUCER, json("kind", "send", "payload", java.util.Map.of(),
                "queue", "reports", "strictKinds", true));
        assertError(otherQueue, 422, "unserved_kind", "on queue 'reports'");
        Reply batch = post("/api/jobs/batch?strictKinds=1", Role.PRODUCER, "{\"jobs\": [{\"kind\": \"send\", "
                + "\"payload\": {}}, {\"kind\": \"nope\", \"payload\": {}}]}");
        assertError(batch, 422, "unserved_kind", "jobs[1]: no live worker serves kind 'nope'");
        assertThat(liveAndFinishedJobs()).isZero();

        assertThat(post("/api/jobs?strictKinds=true", Role.PRODUCER, json("kind", "send", "payload", java.util.Map.of()))
                .status()).isEqualTo(201);
        assertThat(post("/api/jobs", Role.PRODUCER, json("kind", "sned", "payload", java.util.Map.of())).status())
                .as("without strictKinds an unserved kind is accepted, as before").isEqualTo(201);
        assertThat(post("/api/jobs/batch", Role.PRODUCER, "{\"strictKinds\": true, \"jobs\": [{\"kind\": \"send\", "
                + "\"payload\": {}}]}").status()).isEqualTo(201);
    }

    @Test
    void strictKindsFlagsThatAreMalformedOrDisagreeAre400s() {
        assertError(post("/api/jobs?strictKinds=yes", Role.PRODUCER, json("kind", "send", "payload", java.util.Map.of())),
                400, "bad_request", "strictKinds must be true or false");
        assertError(post("/api/jobs?strictKinds=false", Role.PRODUCER, json("kind", "send", "payload", java.util.Map.of(),
                "strictKinds", true)), 400, "bad_request", "strictKinds is false in the query and true in the body");
        assertError(post("/api/jobs", Role.PRODUCER, "{\"kind\": \"send\", \"payload\": {}, \"strictKinds\": \"true\"}"),
                400, "bad_request", "strictKinds");
        assertError(post("/api/jobs/batch", Role.PRODUCER, "{\"jobs\": [{\"kind\": \"send\", \"payload\": {}, "
                + "\"strictKinds\": true}]}"), 400, "bad_request", "strictKinds goes at the top of the batch");
        assertThat(liveAndFinishedJobs()).isZero();
    }

    @Test
    void theSlosAreExportedAsGaugesUnderTheirAgreedNames() {
        docket.admin().setQueueLagSlo("email", Duration.ofSeconds(30));
        docket.admin().setKindPickupSlo("send_email", Duration.ofMillis(1500));
        server.metrics().refresh();

        String scrape = get("/metrics", Role.VIEWER).text();

        assertThat(scrape).contains("docket_queue_lag_slo_seconds{queue=\"email\"} 30.0")
                .contains("docket_kind_pickup_p99_slo_seconds{kind=\"send_email\"} 1.5");
        docket.admin().setQueueLagSlo("email", null);
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            server.metrics().refresh();
            assertThat(get("/metrics", Role.VIEWER).text()).contains("docket_queue_lag_slo_seconds{queue=\"email\"} NaN");
        });
    }
}
