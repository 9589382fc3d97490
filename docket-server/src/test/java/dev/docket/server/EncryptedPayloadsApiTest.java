package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.Docket;
import dev.docket.JobKind;
import dev.docket.JobOptions;
import dev.docket.PayloadKey;
import dev.docket.PayloadKeyProvider;
import dev.docket.PermanentJobFailure;
import dev.docket.server.auth.Role;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Jobs of a kind encrypted at rest through the REST API: a server with the keys encrypts what it enqueues and
 * shows the plaintext to roles that see payloads; a server without them refuses to enqueue (never storing in clear)
 * and shows {@code payloadEncrypted: true}, never the ciphertext.
 */
class EncryptedPayloadsApiTest extends ServerTest {

    record Parcel(String recipient, String phone) {
    }

    private static final String PHONE = "+44-20-7946-0958";
    private static final PayloadKeyProvider KEYS = PayloadKeyProvider.of(List.of(PayloadKey.of("k1", new byte[32])));

    /** A server that has the keys and knows the kind "deliver" is encrypted. */
    private DocketServer keyed;
    /** A server that knows the kind is encrypted but has no keys. */
    private DocketServer keyless;
    private Docket keyedDocket;

    @BeforeEach
    void startServers() {
        keyedDocket = docket(b -> b.payloadKeys(KEYS).encryptedKind("deliver"));
        keyed = closeAfter(DocketServer.start(keyedDocket, tokenStore, DocketServer.Config.defaults().withPort(0)));
        keyless = closeAfter(DocketServer.start(docket(b -> b.encryptedKind("deliver")), tokenStore,
                DocketServer.Config.defaults().withPort(0)));
    }

    private Reply at(DocketServer s, String method, String path, Role role, String body) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(s.baseUrl() + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + tokens.get(role));
        if (body != null) {
            r.header("Content-Type", "application/json");
        }
        return send(r.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private String storedPayload(long id) {
        try (var c = dataSource().getConnection();
             var ps = c.prepareStatement("SELECT payload::text FROM " + schema + ".jobs WHERE id = ?")) {
            ps.setLong(1, id);
            try (var rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1);
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aServerWithTheKeysEncryptsAtEnqueueAndShowsThePlaintextOnlyToRolesThatSeePayloads() {
        Reply r = at(keyed, "POST", "/api/jobs", Role.PRODUCER, json("kind", "deliver", "payload",
                Map.of("recipient", "Ada", "phone", PHONE)));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        long id = r.json().get("id").asLong();
        assertThat(storedPayload(id)).doesNotContain(PHONE).contains("docket:encrypted");

        JsonNode operator = at(keyed, "GET", "/api/jobs/" + id, Role.OPERATOR, null).json();
        assertThat(operator.get("payload").get("phone").asText()).isEqualTo(PHONE);
        assertThat(operator.get("payloadEncrypted").asBoolean()).isTrue();

        Reply viewer = at(keyed, "GET", "/api/jobs/" + id, Role.VIEWER, null);
        assertThat(viewer.json().has("payload")).isFalse();
        assertThat(viewer.json().get("payloadRedacted").asBoolean()).isTrue();
        assertThat(viewer.json().get("payloadEncrypted").asBoolean()).isTrue();
        assertThat(viewer.text()).doesNotContain(PHONE);

        // A server without keys (and the ServerTest one, which knows nothing of the kind) shows "encrypted" only.
        for (DocketServer s : List.of(keyless, server)) {
            Reply admin = at(s, "GET", "/api/jobs/" + id, Role.ADMIN, null);
            assertThat(admin.status()).isEqualTo(200);
            assertThat(admin.json().get("payloadEncrypted").asBoolean()).isTrue();
            assertThat(admin.json().has("payload")).isFalse();
            assertThat(admin.json().has("payloadRedacted")).isFalse();
            assertThat(admin.text()).doesNotContain(PHONE).doesNotContain("docket:encrypted").doesNotContain("\"ct\"");
        }
    }

    @Test
    void aJobInClearShowsNoEncryptionFlagAndAPayloadShapedLikeAnEnvelopeIsRefused() {
        long id = docket.enqueue("plain", new Parcel("Ada", "1"));
        assertThat(get("/api/jobs/" + id, Role.ADMIN).json().has("payloadEncrypted")).isFalse();

        String lookalike = json("kind", "plain", "payload", Map.of("docket:encrypted",
                Map.of("v", 1, "kid", "k1", "iv", "AAAAAAAAAAAAAAAA", "ct", "AAAAAAAAAAAAAAAAAAAAAA==")));
        Reply refused = post("/api/jobs", Role.PRODUCER, lookalike);
        assertThat(refused.status()).as(refused.text()).isEqualTo(400);
        assertThat(refused.json().get("message").asText()).contains("reserves");
        assertThat(liveAndFinishedJobs()).isOne();
    }

    @Test
    void aServerWithoutKeysRefusesToEnqueueAnEncryptedKindAndStoresNothing() {
        Reply one = at(keyless, "POST", "/api/jobs", Role.PRODUCER, json("kind", "deliver", "payload",
                Map.of("phone", PHONE)));
        assertThat(one.status()).as(one.text()).isEqualTo(422);
        assertThat(one.json().get("error").asText()).isEqualTo("payload_encryption");
        assertThat(one.json().get("message").asText()).contains("no payload keys").doesNotContain(PHONE);

        Reply batch = at(keyless, "POST", "/api/jobs/batch", Role.PRODUCER, json("jobs", List.of(
                Map.of("kind", "plain", "payload", Map.of()), Map.of("kind", "deliver", "payload", Map.of("phone", PHONE)))));
        assertThat(batch.status()).as(batch.text()).isEqualTo(422);
        assertThat(liveAndFinishedJobs()).as("nothing stored, in clear or otherwise").isZero();
    }

    @Test
    void signalsToAnEncryptedJobAreEncryptedWhereTheKeysAreAndRefusedWhereTheyAreNot() {
        long id = keyedDocket.enqueue(JobKind.named("deliver"), Map.of("phone", PHONE), JobOptions.builder()
                .awaitSignal("approved", Duration.ofDays(1), dev.docket.SignalTimeout.CANCEL).build()).id();

        Reply refused = at(keyless, "POST", "/api/jobs/" + id + "/signals", Role.OPERATOR,
                json("name", "approved", "payload", Map.of("note", "signal-secret")));
        assertThat(refused.status()).as(refused.text()).isEqualTo(422);
        assertThat(queryLong("SELECT count(*) FROM {s}.signals")).isZero();

        Reply sent = at(keyed, "POST", "/api/jobs/" + id + "/signals", Role.OPERATOR,
                json("name", "approved", "payload", Map.of("note", "signal-secret")));
        assertThat(sent.status()).as(sent.text()).isEqualTo(200);
        assertThat(queryLong("SELECT count(*) FROM {s}.signals WHERE payload::text LIKE '%signal-secret%'")).isZero();

        JsonNode shown = at(keyed, "GET", "/api/jobs/" + id, Role.OPERATOR, null).json();
        assertThat(shown.get("signals").get(0).get("payload").get("note").asText()).isEqualTo("signal-secret");
        Reply hidden = at(keyless, "GET", "/api/jobs/" + id, Role.OPERATOR, null);
        assertThat(hidden.json().get("signals").get(0).get("payloadEncrypted").asBoolean()).isTrue();
        assertThat(hidden.text()).doesNotContain("signal-secret");
    }

    @Test
    void deadJobRepairWorksOnlyWhereTheKeysAre() {
        long id = keyedDocket.enqueue(JobKind.named("deliver"), Map.of("phone", "wrong"),
                JobOptions.builder().maxAttempts(1).build()).id();
        keyedDocket.worker().queue("default", 1).handler("deliver", Map.class, (p, ctx) -> {
            throw new PermanentJobFailure("bad phone");
        }).runReadyJobs();

        Reply refused = at(keyless, "PUT", "/api/dlq/" + id + "/payload", Role.OPERATOR,
                json("payload", Map.of("phone", PHONE)));
        assertThat(refused.status()).as(refused.text()).isEqualTo(422);
        assertThat(refused.json().get("error").asText()).isEqualTo("payload_encryption");

        Reply repaired = at(keyed, "PUT", "/api/dlq/" + id + "/payload", Role.OPERATOR,
                json("payload", Map.of("phone", PHONE)));
        assertThat(repaired.status()).as(repaired.text()).isEqualTo(200);
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE payload::text LIKE '%" + PHONE + "%'")).isZero();
        assertThat(at(keyed, "GET", "/api/jobs/" + id, Role.OPERATOR, null).json().get("payload").get("phone").asText())
                .isEqualTo(PHONE);
    }
}
