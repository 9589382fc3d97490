package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.SignalTimeout;
import dev.docket.server.auth.Role;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/jobs/{id}/signals} and what {@code GET /api/jobs/{id}} shows of waits, signals, progress and
 * logs: roles, redaction, and refusals of malformed, oversized and hostile input (4xx, never 5xx).
 */
class SignalsApiTest extends ServerTest {

    record Order(long id) {
    }

    private long waiting(String signal) {
        return docket.enqueue("ship", new Order(1), JobOptions.builder()
                .awaitSignal(signal, Duration.ofDays(2), SignalTimeout.CANCEL).build());
    }

    private Reply signal(long id, Role role, String body) {
        return post("/api/jobs/" + id + "/signals", role, body);
    }

    @Test
    void anOperatorApprovesAWaitingJobWithAPayloadRecordedWithWhoSentIt() {
        long id = waiting("approved");
        Reply view = get("/api/jobs/" + id, Role.VIEWER);
        assertThat(view.json().get("state").asText()).isEqualTo("waiting");
        JsonNode wait = view.json().get("signalWait");
        assertThat(wait.get("signal").asText()).isEqualTo("approved");
        assertThat(wait.get("onTimeout").asText()).isEqualTo("cancel");
        assertThat(wait.has("deadline")).isTrue();

        Reply r = signal(id, Role.OPERATOR, json("name", "approved", "payload", Map.of("note", "looks fine"),
                "sentBy", "ada"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().get("delivery").asText()).isEqualTo("resumed");
        assertThat(r.json().get("state").asText()).isEqualTo("ready");
        assertThat(r.json().get("sentBy").asText()).isEqualTo("ada (operator, API token)");
        Reply after = get("/api/jobs/" + id, Role.OPERATOR);
        assertThat(after.json().has("signalWait")).isFalse();
        JsonNode sent = after.json().get("signals").get(0);
        assertThat(sent.get("name").asText()).isEqualTo("approved");
        assertThat(sent.get("sentBy").asText()).isEqualTo("ada (operator, API token)");
        assertThat(sent.get("payload").get("note").asText()).isEqualTo("looks fine");
        assertThat(after.json().get("metadata").get("docket.signals").get(0).get("by").asText())
                .isEqualTo("ada (operator, API token)");
    }

    @Test
    void signalPayloadsAreRedactedForRolesThatDoNotSeePayloads() {
        long id = waiting("approved");
        assertThat(signal(id, Role.PRODUCER, json("name", "approved", "payload", Map.of("secret", "s3cr3t"))).status())
                .isEqualTo(200);
        for (Role role : List.of(Role.VIEWER, Role.PRODUCER)) {
            Reply r = get("/api/jobs/" + id, role);
            assertThat(r.text()).as(role.label()).doesNotContain("s3cr3t");
            assertThat(r.json().get("signals").get(0).get("payloadRedacted").asBoolean()).isTrue();
        }
        assertThat(get("/api/jobs/" + id, Role.ADMIN).text()).contains("s3cr3t");
    }

    @Test
    void aSignalToAJobThatWaitsForAnotherIsKeptAndAViewerMaySendNone() {
        long id = waiting("approved");
        assertThat(signal(id, Role.VIEWER, json("name", "approved")).status()).isEqualTo(403);
        Reply kept = signal(id, Role.ADMIN, json("name", "other"));
        assertThat(kept.status()).isEqualTo(200);
        assertThat(kept.json().get("delivery").asText()).isEqualTo("kept");
        assertThat(kept.json().get("state").asText()).isEqualTo("waiting");
        assertThat(kept.json().get("sentBy").asText()).isEqualTo("admin, API token");
    }

    @Test
    void aFinishedJobAnswers409AndAnUnknownOne404() {
        long id = waiting("approved");
        docket.cancel(id);
        Reply finished = signal(id, Role.OPERATOR, json("name", "approved"));
        assertThat(finished.status()).isEqualTo(409);
        assertThat(finished.json().get("error").asText()).isEqualTo("conflict");
        assertThat(finished.json().get("message").asText()).contains("cancelled");
        Reply unknown = signal(id + 1000, Role.OPERATOR, json("name", "approved"));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().get("error").asText()).isEqualTo("not_found");
        assertThat(signal(0, Role.OPERATOR, json("name", "approved")).status()).isEqualTo(400);
    }

    @Test
    void aJobHoldingAHundredKeptSignalsAnswers409() {
        long id = docket.enqueue("ship", new Order(1), JobOptions.builder().delay(Duration.ofHours(1)).build());
        for (int i = 0; i < 100; i++) {
            docket.signal(id, "tick", i);
        }
        Reply r = signal(id, Role.OPERATOR, json("name", "tick"));
        assertThat(r.status()).isEqualTo(409);
        assertThat(r.json().get("message").asText()).contains("100");
    }

    @Test
    void malformedOversizedAndHostileSignalsAreRefusedWith4xx() {
        long id = waiting("approved");
        for (String name : List.of("", " ", "a b", "x".repeat(129), "caf\u00e9", "../approved", "approved\u0000",
                "approved\u202e", "'; DROP TABLE jobs; --")) {
            Reply r = signal(id, Role.OPERATOR, json("name", name));
            assertThat(r.status()).as("name %s", name).isEqualTo(400);
            assertThat(r.json().get("error").asText()).isEqualTo("bad_request");
        }
        assertThat(signal(id, Role.OPERATOR, json("payload", Map.of())).json().get("message").asText())
                .contains("name is required");
        assertThat(signal(id, Role.OPERATOR, "{\"name\": \"approved\", \"name\": \"approved\"}").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "{\"name\": \"approved\", \"payload\": {\"a\": 1, \"a\": 2}}").status())
                .isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "{\"name\": \"approved\", \"extra\": 1}").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "{\"name\": 12}").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "[\"approved\"]").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "{").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "{\"name\": \"approved\", \"payload\": \"\\ud800\"}").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "{\"name\": \"approved\", \"payload\": \"a\\u0000b\"}").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, "{\"name\": \"approved\", \"payload\": 1e200000}").status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, json("name", "approved", "sentBy", "x".repeat(101))).status()).isEqualTo(400);
        assertThat(signal(id, Role.OPERATOR, json("name", "approved", "sentBy", "a\u0007b")).status()).isEqualTo(400);
        Reply big = signal(id, Role.OPERATOR, json("name", "approved", "payload", Map.of("x", "y".repeat(300 * 1024))));
        assertThat(big.status()).isEqualTo(413);
        assertThat(big.json().get("error").asText()).isEqualTo("payload_too_large");
        Reply plain = send(request("/api/jobs/" + id + "/signals", Role.OPERATOR).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("approved", StandardCharsets.UTF_8)).build());
        assertThat(plain.status()).isEqualTo(415);
        assertThat(get("/api/jobs/" + id, Role.OPERATOR).json().get("state").asText()).as("nothing was sent")
                .isEqualTo("waiting");
        assertThat(docket.job(id).orElseThrow().signals()).isEmpty();
    }

    @Test
    void theJobViewShowsProgressAndLogsPerAttempt() {
        long id = docket.enqueue("import", new Order(1), JobOptions.builder().maxAttempts(2).build());
        docket.worker().queue("default", 1).handler("import", Order.class, (o, ctx) -> {
            ctx.progress(0.5, "half way");
            ctx.log("<script>alert(1)</script> attempt " + ctx.attempt());
        }).runReadyJobs();

        JsonNode job = get("/api/jobs/" + id, Role.VIEWER).json();
        assertThat(job.get("state").asText()).isEqualTo(JobState.COMPLETED.name().toLowerCase());
        assertThat(job.get("progress").get("fraction").asDouble()).isEqualTo(0.5);
        assertThat(job.get("progress").get("message").asText()).isEqualTo("half way");
        assertThat(job.get("logs").get(0).get("attempt").asInt()).isEqualTo(1);
        assertThat(job.get("logs").get(0).get("droppedLines").asLong()).isZero();
        assertThat(job.get("logs").get(0).get("lines").get(0).get("message").asText())
                .isEqualTo("<script>alert(1)</script> attempt 1");
    }
}
