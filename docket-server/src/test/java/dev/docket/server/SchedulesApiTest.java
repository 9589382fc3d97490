package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.ScheduleInfo;
import dev.docket.server.auth.Role;
import org.junit.jupiter.api.Test;

/** /api/schedules: stored schedules created and changed by operators, read by every role, bad input refused. */
class SchedulesApiTest extends ServerTest {

    private static final String NIGHTLY = "{\"name\": \"nightly\", \"cron\": \"0 3 * * *\", \"zone\": \"Europe/Berlin\", "
            + "\"kind\": \"report\", \"payload\": {\"to\": \"ops@example.com\"}, \"queue\": \"reports\", \"priority\": 3, "
            + "\"maxAttempts\": 2, \"catchUp\": \"latest\", \"changedBy\": \"ada\"}";

    private Reply delete(String path, Role role) {
        return send(request(path, role).DELETE().build());
    }

    @Test
    void operatorsCreateEditPauseResumeAndDeleteAndEveryRoleReads() {
        Reply created = post("/api/schedules", Role.OPERATOR, NIGHTLY);
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        JsonNode s = created.json().get("schedule");
        assertThat(s.get("origin").asText()).isEqualTo("runtime");
        assertThat(s.get("zone").asText()).isEqualTo("Europe/Berlin");
        assertThat(s.get("catchUp").asText()).isEqualTo("latest");
        assertThat(s.get("createdBy").asText()).isEqualTo("ada (operator, API token)");
        assertThat(s.get("nextSlots")).hasSize(5);
        assertThat(s.get("nextSlots").get(0).get("local").asText()).contains("T03:00");
        assertThat(created.json().get("warnings").get(0).asText()).contains("no live worker serves kind report");

        JsonNode listed = get("/api/schedules", Role.VIEWER).json().get("schedules").get(0);
        assertThat(listed.get("name").asText()).isEqualTo("nightly");
        assertThat(listed.has("payload")).as("a viewer does not see payloads").isFalse();
        assertThat(listed.get("payloadRedacted").asBoolean()).isTrue();
        assertThat(get("/api/schedules/nightly", Role.OPERATOR).json().get("payload").get("to").asText())
                .isEqualTo("ops@example.com");

        Reply edited = put("/api/schedules/nightly", Role.ADMIN, "{\"cron\": \"*/5 * * * *\", \"kind\": \"report\"}");
        assertThat(edited.status()).as(edited.text()).isEqualTo(200);
        assertThat(edited.json().at("/schedule/cron").asText()).isEqualTo("*/5 * * * *");
        assertThat(edited.json().at("/schedule/zone").asText()).as("a field left out takes its default").isEqualTo("UTC");
        assertThat(edited.json().at("/schedule/updatedBy").asText()).isEqualTo("admin, API token");

        assertThat(post("/api/schedules/nightly/pause", Role.OPERATOR).json().at("/schedule/paused").asBoolean()).isTrue();
        assertThat(get("/api/schedules/nightly", Role.VIEWER).json().get("nextSlots")).isEmpty();
        Reply resumed = post("/api/schedules/nightly/resume", Role.OPERATOR, "{\"changedBy\": \"grace\"}");
        assertThat(resumed.json().at("/schedule/paused").asBoolean()).isFalse();
        assertThat(resumed.json().at("/schedule/updatedBy").asText()).isEqualTo("grace (operator, API token)");

        for (Role role : new Role[] {Role.VIEWER, Role.PRODUCER}) {
            assertThat(post("/api/schedules", role, NIGHTLY.replace("nightly", "other")).status()).isEqualTo(403);
            assertThat(put("/api/schedules/nightly", role, "{\"cron\": \"* * * * *\", \"kind\": \"k\"}").status()).isEqualTo(403);
            assertThat(post("/api/schedules/nightly/pause", role).status()).isEqualTo(403);
            assertThat(delete("/api/schedules/nightly", role).status()).isEqualTo(403);
        }
        assertThat(docket.admin().schedule("nightly").orElseThrow().paused()).isFalse();

        Reply duplicate = post("/api/schedules", Role.OPERATOR, NIGHTLY);
        assertThat(duplicate.status()).isEqualTo(409);
        assertThat(duplicate.json().get("message").asText()).contains("already exists");

        assertThat(delete("/api/schedules/nightly", Role.OPERATOR).json().get("deleted").asBoolean()).isTrue();
        assertThat(delete("/api/schedules/nightly", Role.OPERATOR).status()).isEqualTo(404);
        assertThat(get("/api/schedules/nightly", Role.VIEWER).status()).isEqualTo(404);
        assertThat(put("/api/schedules/nightly", Role.OPERATOR, "{\"cron\": \"* * * * *\", \"kind\": \"k\"}").status())
                .isEqualTo(404);
        assertThat(post("/api/schedules/nightly/resume", Role.OPERATOR).status()).isEqualTo(404);
    }

    @Test
    void codeDeclaredSchedulesAreReadOnly() {
        execute("INSERT INTO {s}.schedules (name, origin, cron, zone, kind, created_by, updated_by) "
                + "VALUES ('from-code', 'code', '0 * * * *', 'UTC', 'tick', 'code', 'code')");
        JsonNode s = get("/api/schedules/from-code", Role.VIEWER).json();
        assertThat(s.get("origin").asText()).isEqualTo("code");
        assertThat(s.get("editable").asBoolean()).isFalse();

        Reply edit = put("/api/schedules/from-code", Role.ADMIN, "{\"cron\": \"* * * * *\", \"kind\": \"tick\"}");
        assertThat(edit.status()).isEqualTo(409);
        assertThat(edit.json().get("message").asText()).contains("declared in code").contains("change it in the code");
        assertThat(post("/api/schedules/from-code/pause", Role.ADMIN).status()).isEqualTo(409);
        assertThat(delete("/api/schedules/from-code", Role.ADMIN).status()).isEqualTo(409);
        assertThat(post("/api/schedules", Role.ADMIN, "{\"name\": \"from-code\", \"cron\": \"* * * * *\", \"kind\": \"t\"}")
                .status()).isEqualTo(409);
        assertThat(docket.admin().schedule("from-code").orElseThrow().cron()).isEqualTo("0 * * * *");
        assertThat(docket.admin().schedule("from-code").orElseThrow().origin()).isEqualTo(ScheduleInfo.Origin.CODE);
    }

    @Test
    void malformedOversizedAndHostileInputIs400AndWritesNothing() {
        String[][] bad = {
                {"{\"name\": \"x\", \"cron\": \"not cron\", \"kind\": \"k\"}", "cron"},
                {"{\"name\": \"x\", \"cron\": \"61 * * * *\", \"kind\": \"k\"}", "invalid cron"},
                {"{\"name\": \"x\", \"cron\": \"0 0 31 2 *\", \"kind\": \"k\"}", "never fires"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"zone\": \"Mars/Base\"}", "unknown time zone"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"zone\": \"\\u0000\"}", "time zone"},
                {"{\"name\": \"x y\", \"cron\": \"* * * * *\", \"kind\": \"k\"}", "schedule name must be"},
                {"{\"name\": \"x'; DROP TABLE jobs;--\", \"cron\": \"* * * * *\", \"kind\": \"k\"}", "schedule name must be"},
                {"{\"name\": \"" + "n".repeat(200) + "\", \"cron\": \"* * * * *\", \"kind\": \"k\"}", "schedule name must be"},
                {"{\"name\": \"a\\u202Eb\", \"cron\": \"* * * * *\", \"kind\": \"k\"}", "schedule name must be"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\\ud800\"}", ""},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"" + "k".repeat(300) + "\"}", "kind"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"priority\": 40000}", "priority"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"maxAttempts\": 0}", "maxAttempts"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"catchUp\": \"some\"}", "catchUp must be all or latest"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"queue\": \"bad queue\"}", "queue"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"changedBy\": \"" + "b".repeat(101) + "\"}", "changedBy"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"changedBy\": \"a\\u0007\"}", "changedBy"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\"}", "cron and kind are required"},
                {"{\"cron\": \"* * * * *\", \"kind\": \"k\"}", "name is required"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"extra\": 1}", "unknown field"},
                {"{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", \"name\": \"y\"}", ""},
                {"{\"name\": \"x\", \"cron\": 5, \"kind\": \"k\"}", ""},
                {"[1]", ""},
                {"not json", ""},
        };
        for (String[] b : bad) {
            Reply r = post("/api/schedules", Role.ADMIN, b[0]);
            assertThat(r.status()).as("%s -> %s", b[0], r.text()).isEqualTo(400);
            assertThat(r.json().get("error").asText()).isEqualTo("bad_request");
            assertThat(r.json().get("message").asText()).as(b[0]).contains(b[1]);
        }
        Reply big = post("/api/schedules", Role.ADMIN, "{\"name\": \"x\", \"cron\": \"* * * * *\", \"kind\": \"k\", "
                + "\"payload\": {\"a\": \"" + "x".repeat(300 * 1024) + "\"}}");
        assertThat(big.status()).as(big.text()).isEqualTo(413);
        Reply huge = post("/api/schedules", Role.ADMIN, "{\"name\": \"" + "P".repeat((int) MAX_BODY) + "\"}");
        assertThat(huge.status()).isEqualTo(413);

        assertThat(post("/api/schedules", Role.ADMIN, "{\"name\": \"ok\", \"cron\": \"* * * * *\", \"kind\": \"k\"}").status())
                .isEqualTo(201);
        Reply rename = put("/api/schedules/ok", Role.ADMIN, "{\"name\": \"other\", \"cron\": \"* * * * *\", \"kind\": \"k\"}");
        assertThat(rename.status()).isEqualTo(400);
        assertThat(rename.json().get("message").asText()).contains("cannot be renamed");
        assertThat(put("/api/schedules/bad%20name", Role.ADMIN, "{\"cron\": \"* * * * *\", \"kind\": \"k\"}").status())
                .isEqualTo(400);
        assertThat(post("/api/schedules/ok/pause", Role.ADMIN, "{\"changedBy\": [1]}").status()).isEqualTo(400);
        assertThat(docket.admin().schedules()).extracting(ScheduleInfo::name).containsExactly("ok");
        assertThat(docket.admin().schedule("ok").orElseThrow().version()).isEqualTo(1);
    }
}
