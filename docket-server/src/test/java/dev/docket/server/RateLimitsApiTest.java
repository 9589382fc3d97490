package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.RateLimit;
import dev.docket.server.auth.Role;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** GET, PUT and DELETE /api/rate-limits: limits edited at run time, by operators, with bad input refused. */
class RateLimitsApiTest extends ServerTest {

    record Task(int n) {
    }

    private Reply delete(String path, Role role) {
        return send(request(path, role).DELETE().build());
    }

    @Test
    void operatorsSetListAndRemoveLimitsAndViewersReadThem() {
        docket.enqueue("send_email", new Task(1));
        Reply set = put("/api/rate-limits/kind/send_email", Role.OPERATOR, json("permits", 50, "period", "PT1S"));
        assertThat(set.status()).as(set.text()).isEqualTo(200);
        assertThat(set.json().get("permits").asInt()).isEqualTo(50);
        assertThat(set.json().get("periodMs").asLong()).isEqualTo(1000);
        assertThat(set.json().get("edited").asBoolean()).isTrue();
        assertThat(put("/api/rate-limits/queue/default", Role.ADMIN,
                json("permits", 10, "period", "1m", "perTenant", true)).status()).isEqualTo(200);
        assertThat(docket.admin().rateLimits()).extracting(s -> s.limit()).containsExactly(
                RateLimit.ofKind("send_email", 50, Duration.ofSeconds(1)),
                RateLimit.ofQueue("default", 10, Duration.ofMinutes(1)).perTenantBudgets());

        JsonNode limits = get("/api/rate-limits", Role.VIEWER).json().get("rateLimits");
        assertThat(limits).hasSize(2);
        assertThat(limits.get(0).get("scope").asText()).isEqualTo("kind");
        assertThat(limits.get(1).get("period").asText()).isEqualTo("PT1M");
        assertThat(limits.get(1).get("perTenant").asBoolean()).isTrue();

        assertThat(put("/api/rate-limits/kind/send_email", Role.VIEWER, json("permits", 1, "period", "PT1S")).status())
                .isEqualTo(403);
        assertThat(put("/api/rate-limits/kind/send_email", Role.PRODUCER, json("permits", 1, "period", "PT1S")).status())
                .isEqualTo(403);
        assertThat(delete("/api/rate-limits/kind/send_email", Role.VIEWER).status()).isEqualTo(403);

        assertThat(delete("/api/rate-limits/kind/send_email", Role.OPERATOR).status()).isEqualTo(200);
        assertThat(delete("/api/rate-limits/kind/send_email", Role.OPERATOR).status()).isEqualTo(404);
        assertThat(docket.admin().rateLimits()).hasSize(1);
    }

    @Test
    void unknownNamesAre404sUnlessCreated() {
        Reply unknown = put("/api/rate-limits/kind/sned_email", Role.OPERATOR, json("permits", 5, "period", "PT1S"));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().get("message").asText()).contains("no kind sned_email is known");
        assertThat(put("/api/rate-limits/queue/nowhere", Role.OPERATOR, json("permits", 5, "period", "PT1S")).status())
                .isEqualTo(404);
        assertThat(docket.admin().rateLimits()).isEmpty();
        assertThat(put("/api/rate-limits/kind/new_kind?create=true", Role.OPERATOR, json("permits", 5, "period", "PT1S"))
                .status()).isEqualTo(200);
    }

    @Test
    void malformedOversizedAndHostileInputIs400AndChangesNothing() {
        docket.enqueue("k", new Task(1));
        String[][] bad = {
                {"/api/rate-limits/kind/k", "{\"permits\": 0, \"period\": \"PT1S\"}", "permits must be between 1 and 1000000"},
                {"/api/rate-limits/kind/k", "{\"permits\": -3, \"period\": \"PT1S\"}", "permits"},
                {"/api/rate-limits/kind/k", "{\"permits\": 1000001, \"period\": \"PT1S\"}", "permits"},
                {"/api/rate-limits/kind/k", "{\"permits\": 99999999999, \"period\": \"PT1S\"}", ""},
                {"/api/rate-limits/kind/k", "{\"permits\": 1.5, \"period\": \"PT1S\"}", ""},
                {"/api/rate-limits/kind/k", "{\"permits\": \"5\", \"period\": \"PT1S\"}", ""},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"PT0S\"}", "period must be between 1 ms and 7 days"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"-PT1S\"}", "period"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"P8D\"}", "period"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"PT9999999999999999999S\"}", "period"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"PT0.0001S\"}", "whole number of milliseconds"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"1 second\"}", "period must be a duration such as"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"99999999999999999999s\"}", "period"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"9999999999999999d\"}", "period"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": 1000}", ""},
                {"/api/rate-limits/kind/k", "{\"permits\": 5}", "permits and period are required"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"PT1S\", \"extra\": 1}", "unknown field"},
                {"/api/rate-limits/kind/k", "{\"permits\": 5, \"period\": \"PT1S\", \"permits\": 6}", ""},
                {"/api/rate-limits/kind/k", "[1]", ""},
                {"/api/rate-limits/kind/k", "not json", ""},
                {"/api/rate-limits/kind/k?create=maybe", "{\"permits\": 5, \"period\": \"PT1S\"}", "create must be true or false"},
                {"/api/rate-limits/tenant/k", "{\"permits\": 5, \"period\": \"PT1S\"}", "the scope must be kind or queue"},
                {"/api/rate-limits/queue/bad%20queue%21", "{\"permits\": 5, \"period\": \"PT1S\"}", "queue"},
                {"/api/rate-limits/queue/" + "q".repeat(200), "{\"permits\": 5, \"period\": \"PT1S\"}", "queue"},
                {"/api/rate-limits/kind/a%E2%80%AEb", "{\"permits\": 5, \"period\": \"PT1S\"}", "kind"},
                {"/api/rate-limits/kind/" + "k".repeat(300), "{\"permits\": 5, \"period\": \"PT1S\"}", "kind"},
        };
        for (String[] b : bad) {
            Reply r = put(b[0], Role.ADMIN, b[1]);
            assertThat(r.status()).as("%s %s -> %s", b[0], b[1], r.text()).isEqualTo(400);
            assertThat(r.json().get("error").asText()).isEqualTo("bad_request");
            assertThat(r.json().get("message").asText()).as(b[1]).contains(b[2]);
        }
        assertThat(delete("/api/rate-limits/tenant/k", Role.ADMIN).status()).isEqualTo(400);
        assertThat(delete("/api/rate-limits/queue/bad%20queue", Role.ADMIN).status()).isEqualTo(400);
        Reply huge = put("/api/rate-limits/kind/k", Role.ADMIN, "{\"period\": \"" + "P".repeat((int) MAX_BODY) + "\"}");
        assertThat(huge.status()).isEqualTo(413);
        assertThat(docket.admin().rateLimits()).isEmpty();
    }
}
