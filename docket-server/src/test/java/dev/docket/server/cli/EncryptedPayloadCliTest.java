package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static dev.docket.server.cli.CliTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code DOCKET_PAYLOAD_KEYS} and {@code DOCKET_ENCRYPTED_KINDS}: the CLI encrypts what it enqueues of an encrypted
 * kind when it has the keys, refuses when it has not, shows "encrypted" without them, and refuses a malformed key
 * configuration before it connects.
 */
class EncryptedPayloadCliTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PHONE = "+44-20-7946-0958";
    private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);

    private final Map<String, String> env = new HashMap<>();

    private Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", db.jdbcUrl(), "--schema", schema));
        return CliRunner.run(env, all.toArray(String[]::new));
    }

    private long jobs() {
        return queryLong("SELECT (SELECT count(*) FROM {s}.jobs) + (SELECT count(*) FROM {s}.dead_jobs)");
    }

    @Test
    void enqueueEncryptsWithTheKeysAndJobShowsThePlaintextOnlyWithThem() throws Exception {
        docket();
        env.put("DOCKET_PAYLOAD_KEYS", "k1:" + KEY);
        env.put("DOCKET_ENCRYPTED_KINDS", "deliver, other");
        Run enqueued = cli("enqueue", "--kind", "deliver", "--payload", "{\"phone\":\"" + PHONE + "\"}");
        assertOk(enqueued);
        long id = Long.parseLong(enqueued.out().strip().split(" ")[0]);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE payload::text LIKE '%" + PHONE + "%'")).isZero();

        Run shown = cli("job", Long.toString(id));
        assertOk(shown);
        JsonNode job = JSON.readTree(shown.out());
        assertThat(job.get("payload").get("phone").asText()).isEqualTo(PHONE);
        assertThat(job.get("payloadEncrypted").asBoolean()).isTrue();

        env.clear();
        Run hidden = cli("job", Long.toString(id));
        assertOk(hidden);
        JsonNode without = JSON.readTree(hidden.out());
        assertThat(without.has("payload")).isFalse();
        assertThat(without.get("payloadEncrypted").asBoolean()).isTrue();
        assertThat(hidden.out()).doesNotContain(PHONE).doesNotContain("docket:encrypted");
    }

    @Test
    void enqueueOfAnEncryptedKindWithoutKeysIsRefusedAndNothingIsStored() {
        docket();
        env.put("DOCKET_ENCRYPTED_KINDS", "deliver");
        Run r = cli("enqueue", "--kind", "deliver", "--payload", "{\"phone\":\"" + PHONE + "\"}");
        assertFails(r, CommandLine.ExitCode.SOFTWARE, "no payload keys");
        assertThat(r.err()).doesNotContain(PHONE);
        assertThat(jobs()).isZero();
    }

    @Test
    void aMalformedKeyConfigurationIsAUsageErrorWithoutTheKeyText() {
        docket();
        String shortKey = Base64.getEncoder().encodeToString(new byte[16]);
        Map<String, String> bad = Map.of(
                "k1:%%%", "not valid base64",
                "k1:" + shortKey, "must be 32 bytes",
                "k1:" + KEY + ",k1:" + KEY, "given twice",
                "k1" + KEY, "not kid:base64key",
                "k1:" + KEY + ",,k2:" + KEY, "empty");
        bad.forEach((config, message) -> {
            env.put("DOCKET_PAYLOAD_KEYS", config);
            Run r = cli("enqueue", "--kind", "k", "--payload", "{}");
            assertFails(r, CommandLine.ExitCode.USAGE, "DOCKET_PAYLOAD_KEYS");
            assertThat(r.err()).contains(message).doesNotContain(KEY).doesNotContain(shortKey);
        });
        env.put("DOCKET_PAYLOAD_KEYS", "k1:" + KEY);
        env.put("DOCKET_ENCRYPTED_KINDS", "good,bad kind\u0000");
        assertFails(cli("enqueue", "--kind", "k", "--payload", "{}"), CommandLine.ExitCode.USAGE, "DOCKET_ENCRYPTED_KINDS");
        assertThat(jobs()).isZero();
    }
}
