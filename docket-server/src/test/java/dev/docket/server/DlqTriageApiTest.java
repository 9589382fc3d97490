package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.server.auth.Role;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code /api/dlq} by error signature, and payload repairs for the roles that see payloads. */
class DlqTriageApiTest extends ServerTest {

    private static final String DECLINED = "CardDeclined: card declined for customer <n>";
    private static final String DECLINED_QUERY = "CardDeclined%3A%20card%20declined%20for%20customer%20%3Cn%3E";

    private void deadJobs() {
        insertDeadJob(1, "charge", "{\"customer\": 17}", "com.acme.CardDeclined: card declined for customer 17");
        insertDeadJob(2, "charge", "{\"customer\": 42}", "com.acme.CardDeclined: card declined for customer 42");
        insertDeadJob(3, "charge", "{\"customer\": 5}", "java.net.SocketTimeoutException: connect timed out");
    }

    private List<Long> ids(Reply page) {
        return page.json().get("jobs").findValues("id").stream().map(JsonNode::asLong).toList();
    }

    private JsonNode payload(long id) throws Exception {
        return JSON.readTree(docket.job(id).orElseThrow().payload());
    }

    @Test
    void groupsListsAndReplaysBySignature() {
        deadJobs();
        JsonNode groups = get("/api/dlq/groups", Role.VIEWER).json().get("groups");
        assertThat(groups).hasSize(2);
        assertThat(groups.get(0).get("signature").asText()).isEqualTo(DECLINED);
        assertThat(groups.get(0).get("count").asLong()).isEqualTo(2);
        assertThat(groups.get(0).get("error").asText()).isEqualTo("com.acme.CardDeclined: card declined for customer 42");

        assertThat(ids(get("/api/dlq?signature=" + DECLINED_QUERY, Role.VIEWER))).containsExactly(2L, 1L);
        assertThat(ids(get("/api/dlq?signature=CardDeclined", Role.VIEWER))).isEmpty();
        assertThat(get("/api/dlq?signature=" + "x".repeat(201), Role.VIEWER).status()).isEqualTo(400);
        assertThat(get("/api/dlq?signature=a%00b", Role.VIEWER).status()).isEqualTo(400);

        Reply replay = post("/api/dlq/retry", Role.OPERATOR, json("kind", "charge", "signature", DECLINED, "ratePerSecond", 5));
        assertThat(replay.status()).as(replay.text()).isEqualTo(202);
        assertThat(replay.json().get("matched").asInt()).isEqualTo(2);
        assertThat(replay.json().get("signature").asText()).isEqualTo(DECLINED);
        assertThat(get("/api/dlq/replays/" + replay.json().get("id").asLong(), Role.VIEWER).json().get("signature").asText())
                .isEqualTo(DECLINED);
        assertThat(post("/api/dlq/retry", Role.OPERATOR, json("signature", 5)).status()).isEqualTo(400);
        assertThat(post("/api/dlq/retry", Role.OPERATOR, json("signature", "x".repeat(201))).status()).isEqualTo(400);
    }

    @Test
    void anOperatorReplacesAPayloadAndTheRepairIsRecorded() throws Exception {
        deadJobs();
        Reply repaired = put("/api/dlq/1/payload", Role.OPERATOR,
                "{\"payload\": {\"customer\": 17, \"card\": \"backup\", \"amount\": 12345678901234567890.5}, \"repairedBy\": \"ada\"}");
        assertThat(repaired.status()).as(repaired.text()).isEqualTo(200);
        assertThat(repaired.json().get("state").asText()).isEqualTo("dead");
        assertThat(repaired.json().get("repairedBy").asText()).isEqualTo("ada (operator, API token)");
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = 1 AND payload::text = ?",
                "{\"card\": \"backup\", \"amount\": 12345678901234567890.5, \"customer\": 17}")).as("numbers as sent").isEqualTo(1);
        JsonNode record = JSON.readTree(docket.job(1).orElseThrow().metadata()).get("docket.repairs").get(0);
        assertThat(record.get("by").asText()).isEqualTo("ada (operator, API token)");
        assertThat(record.get("how").asText()).isEqualTo("payload replaced");

        assertThat(put("/api/dlq/2/payload", Role.ADMIN, "{\"payload\": {}}").json().get("repairedBy").asText())
                .isEqualTo("admin, API token");
        assertThat(put("/api/dlq/99/payload", Role.OPERATOR, "{\"payload\": {}}").status()).isEqualTo(404);
    }

    @Test
    void onlyRolesThatSeePayloadsRepair() throws Exception {
        deadJobs();
        for (Role role : List.of(Role.VIEWER, Role.PRODUCER)) {
            assertThat(put("/api/dlq/1/payload", role, "{\"payload\": {}}").status()).isEqualTo(403);
            assertThat(post("/api/dlq/repair", role, json("kind", "charge", "signature", DECLINED, "mergePatch",
                    java.util.Map.of("a", 1))).status()).isEqualTo(403);
        }
        assertThat(send(request("/api/dlq/1/payload").header("Content-Type", "application/json")
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("{\"payload\": {}}")).build()).status()).isEqualTo(401);
        assertThat(payload(1)).isEqualTo(JSON.readTree("{\"customer\": 17}"));
    }

    @Test
    void hostileRepairsAre4xxAndChangeNothing() throws Exception {
        deadJobs();
        String big = "{\"payload\": {\"s\": \"" + "x".repeat(300 * 1024) + "\"}}";
        assertThat(put("/api/dlq/1/payload", Role.OPERATOR, big).status()).isEqualTo(413);
        for (String body : List.of("{}", "{\"payload\": null}", "{\"payload\": {}, \"extra\": 1}", "[]", "{\"payload\": {\"a\": 1, \"a\": 2}}",
                "{\"payload\": {\"s\": \"\\ud800\"}}", "{\"payload\": {\"s\": \"\\u0000\"}}", "{\"payload\": 1e999999999}",
                "{\"payload\": {}, \"repairedBy\": \"" + "a".repeat(101) + "\"}", "{\"payload\": {}, \"repairedBy\": \"a\\nb\"}",
                "{\"payload\": {}, \"repairedBy\": \"a\\u202eb\"}", "{\"payload\": {}, \"repairedBy\": \" \"}",
                "{\"payload\": {}, \"repairedBy\": 5}", "{\"payload\": {")) {
            Reply r = put("/api/dlq/1/payload", Role.OPERATOR, body);
            assertThat(r.status()).as(body.length() > 100 ? body.substring(0, 100) : body).isEqualTo(400);
            assertThat(r.json().get("error").asText()).isEqualTo("bad_request");
        }
        assertThat(put("/api/dlq/abc/payload", Role.OPERATOR, "{\"payload\": {}}").status()).isEqualTo(400);
        assertThat(put("/api/dlq/0/payload", Role.OPERATOR, "{\"payload\": {}}").status()).isEqualTo(400);

        for (String body : List.of(json("signature", DECLINED, "mergePatch", java.util.Map.of()),
                json("kind", "charge", "mergePatch", java.util.Map.of()),
                json("kind", "charge", "signature", DECLINED),
                json("kind", "charge", "signature", DECLINED, "mergePatch", List.of(1)),
                json("kind", "charge", "signature", DECLINED, "mergePatch", "x"),
                json("kind", "charge", "signature", DECLINED, "mergePatch", java.util.Map.of(), "max", 0),
                json("kind", "charge", "signature", DECLINED, "mergePatch", java.util.Map.of(), "max", 10_001),
                json("kind", "charge", "signature", DECLINED, "mergePatch", java.util.Map.of(), "dryRun", "yes"),
                json("kind", "bad\u202ekind", "signature", DECLINED, "mergePatch", java.util.Map.of()),
                json("kind", "charge", "signature", "x".repeat(201), "mergePatch", java.util.Map.of()),
                "{\"kind\": \"charge\", \"signature\": \"" + DECLINED + "\", \"mergePatch\": {\"s\": \"\\ud800\"}}")) {
            Reply r = post("/api/dlq/repair", Role.OPERATOR, body);
            assertThat(r.status()).as(body).isEqualTo(400);
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE metadata = '{}'")).isEqualTo(3);
    }

    @Test
    void aMergePatchRepairsTheGroupWithADryRunFirst() throws Exception {
        deadJobs();
        String patch = json("kind", "charge", "signature", DECLINED, "mergePatch", java.util.Map.of("card", "backup"),
                "dryRun", true);
        Reply dry = post("/api/dlq/repair", Role.OPERATOR, patch);
        assertThat(dry.status()).as(dry.text()).isEqualTo(200);
        assertThat(dry.json().get("dryRun").asBoolean()).isTrue();
        assertThat(dry.json().get("matched").asInt()).isEqualTo(2);
        assertThat(dry.json().get("changed").toString()).isEqualTo("[2,1]");
        assertThat(payload(1).has("card")).isFalse();

        Reply done = post("/api/dlq/repair", Role.ADMIN, json("kind", "charge", "signature", DECLINED,
                "mergePatch", java.util.Map.of("card", "backup"), "repairedBy", "grace"));
        assertThat(done.json().get("changed").toString()).isEqualTo("[2,1]");
        assertThat(done.json().get("repairedBy").asText()).isEqualTo("grace (admin, API token)");
        assertThat(payload(2)).isEqualTo(JSON.readTree("{\"customer\": 42, \"card\": \"backup\"}"));
        assertThat(payload(3).has("card")).as("another signature").isFalse();
    }
}
