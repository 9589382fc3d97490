package dev.docket.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.JobState;
import dev.docket.PermanentJobFailure;
import dev.docket.Worker;
import dev.docket.internal.db.DatabaseUrl;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.server.spi.HandlerProvider;
import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code docket} command, run in-process against the test database. */
class CliTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, String> env = new HashMap<>();

    private Run cli(String... args) {
        return CliRunner.run(env, args);
    }

    /** The arguments with this test's database and schema appended. */
    private String[] db(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", this.db.jdbcUrl(), "--schema", schema));
        return all.toArray(String[]::new);
    }

    static void assertOk(Run r) {
        assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isZero();
        assertThat(r.err()).isEmpty();
    }

    /** One line on stderr, {@code docket: ...}, no stack trace, and the exit status. */
    static void assertFails(Run r, int exit, String messagePart) {
        assertThat(r.exit()).as("exit status; stderr: %s", r.err()).isEqualTo(exit);
        assertThat(r.err()).startsWith("docket: ").endsWith(System.lineSeparator());
        assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
        assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("at dev.")
                .doesNotContain("at java.").containsIgnoringCase(messagePart);
    }

    private long enqueue(String... args) {
        Run r = cli(db(args));
        assertOk(r);
        return Long.parseLong(r.out().strip().split(" ")[0]);
    }

    /** `docket queue` pauses, resumes and caps queues in the database, and lists them with running jobs per tenant. */
    @Test
    void queueCommandsControlQueuesClusterWide() {
        Docket docket = docket();
        assertOk(cli(db("queue", "pause", "email", "--create")));
        assertThat(docket.admin().queues()).singleElement().satisfies(q -> {
            assertThat(q.queue()).isEqualTo("email");
            assertThat(q.paused()).isTrue();
        });
        assertOk(cli(db("queue", "limits", "email", "--max-running", "10", "--tenant-max-running", "2")));
        Run list = cli(db("queue", "list"));
        assertOk(list);
        assertThat(list.out()).contains("email").contains("yes").contains("10").contains("2");
        assertOk(cli(db("queue", "resume", "email")));
        assertThat(docket.admin().queues().getFirst().paused()).isFalse();

        Run bad = cli(db("queue", "pause", "no spaces"));
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err().strip()).startsWith("docket: ").doesNotContain("\n").doesNotContain("Exception");
        Run negative = cli(db("queue", "limits", "email", "--tenant-max-running", "0"));
        assertThat(negative.exit()).isEqualTo(2);
    }

    /** A misspelt queue fails instead of silently becoming a new queue; --create makes one on purpose. */
    @Test
    void anUnknownQueueIsNotCreatedUnlessAskedTo() {
        Docket docket = docket();
        assertFails(cli(db("queue", "pause", "emial")), 1, "no queue emial");
        assertFails(cli(db("queue", "resume", "emial")), 1, "add --create");
        assertFails(cli(db("queue", "limits", "emial", "--max-running", "3")), 1, "no queue emial");
        assertFails(cli(db("queue", "limits", "emial")), 1, "no queue emial");
        assertThat(docket.admin().queues()).isEmpty();

        docket.enqueue("mail", java.util.Map.of(), dev.docket.JobOptions.builder().queue("email").build());
        assertOk(cli(db("queue", "pause", "email")));
        assertThat(docket.admin().queues()).singleElement().satisfies(q -> assertThat(q.paused()).isTrue());
        assertOk(cli(db("queue", "limits", "fresh", "--max-running", "3", "--create")));
        assertThat(docket.admin().knowsQueue("fresh")).isTrue();
    }

    /** `queue limits NAME` shows the caps; options change only the caps they name; --clear removes them. */
    @Test
    void queueLimitsShowsAndClearsOnlyWhenAsked() {
        Docket docket = docket();
        assertOk(cli(db("queue", "limits", "imports", "--max-running", "20", "--tenant-max-running", "4", "--create")));

        Run shown = cli(db("queue", "limits", "imports"));
        assertOk(shown);
        assertThat(shown.out().strip()).isEqualTo("imports: max running 20, per tenant 4");
        assertThat(docket.admin().queues().getFirst().maxRunning()).as("showing changes nothing").isEqualTo(20);

        Run one = cli(db("queue", "limits", "imports", "--max-running", "5"));
        assertOk(one);
        assertThat(one.out().strip()).isEqualTo("imports: max running 5, per tenant 4");

        Run clearedButOne = cli(db("queue", "limits", "imports", "--clear", "--tenant-max-running", "2"));
        assertThat(clearedButOne.out().strip()).isEqualTo("imports: max running unlimited, per tenant 2");

        Run cleared = cli(db("queue", "limits", "imports", "--clear"));
        assertOk(cleared);
        assertThat(cleared.out().strip()).isEqualTo("imports: max running unlimited, per tenant unlimited");
        assertThat(docket.admin().queues().getFirst().maxRunning()).isNull();
        assertThat(docket.admin().queues().getFirst().tenantMaxRunning()).isNull();
    }

    @Test
    @FreshSchema
    void migrateAppliesThenFindsNothingToDo() {
        Run first = cli(db("migrate"));
        Run second = cli(db("migrate"));

        assertOk(first);
        assertThat(first.out()).contains("Applied " + Docket.supportedSchemaVersion() + " migrations")
                .contains("schema " + schema).contains("version " + Docket.supportedSchemaVersion());
        assertOk(second);
        assertThat(second.out()).contains("already at version " + Docket.supportedSchemaVersion());
    }

    @Test
    @FreshSchema
    void migratePrintTouchesNothing() {
        Run r = cli("migrate", "--print", "--schema", schema);

        assertOk(r);
        assertThat(r.out()).contains("CREATE SCHEMA IF NOT EXISTS \"" + schema + "\"").contains("CREATE TABLE")
                .contains(schema + ".schema_migrations");
        assertThat(queryLong("SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?", schema)).isZero();
    }

    @Test
    void enqueueThenShowTheJob() throws Exception {
        docket();
        long id = enqueue("enqueue", "--kind", "send_email", "--payload", "{\"to\":\"ada@example.com\",\"n\":1e400}",
                "--queue", "email", "--priority", "-3", "--tenant", "acme", "--max-attempts", "3");

        Run r = cli(db("job", Long.toString(id)));

        assertOk(r);
        JsonNode job = JSON.readTree(r.out());
        assertThat(job.get("id").asLong()).isEqualTo(id);
        assertThat(job.get("kind").asText()).isEqualTo("send_email");
        assertThat(job.get("queue").asText()).isEqualTo("email");
        assertThat(job.get("state").asText()).isEqualTo("ready");
        assertThat(job.get("priority").asInt()).isEqualTo(-3);
        assertThat(job.get("maxAttempts").asInt()).isEqualTo(3);
        assertThat(job.get("tenant").asText()).isEqualTo("acme");
        assertThat(job.get("payload").get("to").asText()).isEqualTo("ada@example.com");
        assertThat(job.get("payload").get("n").decimalValue()).isEqualByComparingTo("1e400");
        assertThat(job.has("output")).as("nothing recorded yet").isFalse();
    }

    /** {@code docket job ID} prints what the handler recorded, parsed like the payload. */
    @Test
    void showTheOutputAJobRecorded() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("charge", Map.of("order", "o-1"));
        worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofMillis(50))
                .handler("charge", JsonNode.class, (p, ctx) -> ctx.recordOutput(Map.of("cents", 4200))));
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(20));

        Run r = cli(db("job", Long.toString(id)));

        assertOk(r);
        JsonNode job = JSON.readTree(r.out());
        assertThat(job.get("output").get("cents").asLong()).isEqualTo(4200);
        assertThat(job.get("payload").get("order").asText()).isEqualTo("o-1");
        assertThat(job.has("outputRedacted")).isFalse();
    }

    /** {@code --sequence-key}: the second job of a key waits; an empty key is a usage error. */
    @Test
    void enqueueWithASequenceKey() throws Exception {
        docket();
        enqueue("enqueue", "--kind", "sync", "--payload", "{}", "--sequence-key", "order-7");
        long second = enqueue("enqueue", "--kind", "sync", "--payload", "{}", "--sequence-key", "order-7",
                "--halt-sequence-on-death");

        JsonNode job = JSON.readTree(cli(db("job", Long.toString(second))).out());
        assertThat(job.get("state").asText()).isEqualTo("waiting");
        assertThat(job.get("sequenceKey").asText()).isEqualTo("order-7");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE sequence_halt")).isEqualTo(1);
        assertFails(cli(db("enqueue", "--kind", "sync", "--payload", "{}", "--sequence-key", "")), 2, "sequenceKey");
    }

    /** {@code dlq discard}: the halted sequence resumes; an unknown id fails with exit 1, a bad one with 2. */
    @Test
    void dlqDiscardResumesAHaltedSequence() {
        Docket docket = docket();
        insertDeadJob(900, "sync", "{}", "boom");
        execute("UPDATE {s}.dead_jobs SET sequence_key = 'order-7', sequence_halt = true");
        long next = docket.enqueue("sync", java.util.Map.of(), dev.docket.JobOptions.builder().sequenceKey("order-7").build());

        Run r = cli(db("dlq", "discard", "900"));
        assertOk(r);
        assertThat(r.out().strip()).isEqualTo("discarded 900");
        assertThat(docket.job(next).orElseThrow().state()).isEqualTo(JobState.READY);
        assertFails(cli(db("dlq", "discard", "900")), 1, "no dead job 900");
        assertFails(cli(db("dlq", "discard", "0")), 2, "positive");
    }

    @Test
    void enqueueWithUniqueKeySaysExisting() {
        docket();
        Run first = cli(db("enqueue", "--kind", "report", "--payload", "{}", "--unique-key", "report:today"));
        Run second = cli(db("enqueue", "--kind", "report", "--payload", "{}", "--unique-key", "report:today"));

        assertOk(first);
        assertOk(second);
        assertThat(first.out().strip()).matches("\\d+");
        assertThat(second.out().strip()).isEqualTo(first.out().strip() + " existing");
        Run daily = cli(db("enqueue", "--kind", "digest", "--payload", "{}", "--unique-key", "digest:ada", "--unique-for", "1d"));
        assertOk(daily);
        assertFails(cli(db("enqueue", "--kind", "digest", "--payload", "{}", "--unique-for", "1d")), 2, "uniqueKey");
    }

    /**
     * Text the database would store differently (a lone surrogate becomes {@code ?}), names that
     * render misleadingly, times outside the documented range and duplicate JSON keys: each is one
     * {@code docket: ...} line and exit status 2, and nothing is stored.
     */
    @Test
    void enqueueRefusesTextItCannotStoreAsGiven() {
        docket();
        List<List<String>> bad = List.of(
                List.of("--kind", "a\ud800b"),
                List.of("--kind", "k", "--unique-key", "x\ud800"),
                List.of("--kind", "k", "--tenant", "\udfff"),
                List.of("--kind", "k", "--queue", "q\ud800"),
                List.of("--kind", "send\u200bemail"),
                List.of("--kind", "\u202egnp.exe"),
                List.of("--kind", "a\u00a0b"),
                List.of("--kind", "k", "--run-at", "+99999-01-01T00:00:00Z"),
                List.of("--kind", "k", "--run-at", "0001-01-01T00:00:00Z"));
        for (List<String> args : bad) {
            List<String> all = new ArrayList<>(List.of("enqueue", "--payload", "{}"));
            all.addAll(args);
            Run r = cli(db(all.toArray(String[]::new)));
            assertFails(r, 2, "");
            assertThat(r.err()).as("the message shows no unprintable character").doesNotContain("\ud800", "\udfff",
                    "\u200b", "\u202e", "\u00a0");
        }
        Run twice = cli(db("enqueue", "--kind", "k", "--payload", "{\"to\":1,\"to\":2}"));
        assertFails(twice, 2, "twice");
        assertFails(cli(db("queue", "pause", "q\u202e")), 2, "queue");
        assertFails(cli(db("dlq", "list", "--kind", "k\u200b")), 2, "kind");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    @Test
    void enqueueLaterWithDelayOrRunAt(@TempDir Path dir) throws Exception {
        Docket docket = docket();
        Path payload = Files.writeString(dir.resolve("payload.json"), "{\"from\": \"a file\"}");
        long delayed = enqueue("enqueue", "--kind", "later", "--payload", "@" + payload, "--delay", "5m");
        long at = enqueue("enqueue", "--kind", "later", "--payload", "[1,2]", "--run-at", "2031-02-03T04:05:06+01:00");

        assertThat(docket.job(delayed).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(docket.job(delayed).orElseThrow().payload()).contains("a file");
        assertThat(docket.job(at).orElseThrow().runAt()).isEqualTo(Instant.parse("2031-02-03T03:05:06Z"));
    }

    @Test
    void statsPrintsATablePerQueueAndKind() throws Exception {
        docket();
        enqueue("enqueue", "--kind", "thumbnail", "--payload", "{}");
        enqueue("enqueue", "--kind", "thumbnail", "--payload", "{}");
        enqueue("enqueue", "--kind", "send_email", "--payload", "{}", "--queue", "email", "--delay", "1h");

        Run table = cli(db("stats"));
        Run json = cli(db("stats", "--json"));

        assertOk(table);
        List<String> lines = table.out().lines().toList();
        assertThat(lines.getFirst()).contains("QUEUE").contains("KIND").contains("READY").contains("SCHEDULED")
                .contains("DEAD");
        assertThat(lines.getFirst()).containsPattern("RUNNING +BACKLOG +LAG");
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("default\\s+thumbnail\\s+0\\s+2\\s+0\\s+2\\s.*"));
        assertThat(lines).anySatisfy(l -> assertThat(l).matches("email\\s+send_email\\s+1\\s+0\\s+0\\s+0\\s.*"));
        assertOk(json);
        assertThat(JSON.readTree(json.out()).get("queues")).hasSize(2);
    }

    @Test
    void statsOnAnEmptyQueue() {
        docket();
        Run r = cli(db("stats"));

        assertOk(r);
        assertThat(r.out()).startsWith("No jobs");
    }

    @Test
    void deadLetterListAndRetry() {
        Docket docket = docket();
        long declined = docket.enqueue("charge_card", Map.of("order", 1));
        long timedOut = docket.enqueue("webhook", Map.of("url", "x"));
        try (Worker w = docket.worker().queue("default", 4).pollInterval(Duration.ofMillis(50))
                .handler("charge_card", JsonNode.class, (p, ctx) -> {
                    throw new PermanentJobFailure("card declined: expired");
                })
                .handler("webhook", JsonNode.class, (p, ctx) -> {
                    throw new PermanentJobFailure("endpoint timed out");
                })
                .start()) {
            awaitState(docket, declined, JobState.DEAD, Duration.ofSeconds(20));
            awaitState(docket, timedOut, JobState.DEAD, Duration.ofSeconds(20));
        }

        Run all = cli(db("dlq", "list"));
        Run byKind = cli(db("dlq", "list", "--kind", "charge_card"));
        Run byError = cli(db("dlq", "list", "--error-contains", "TIMED OUT", "--limit", "1"));
        Run none = cli(db("dlq", "list", "--kind", "nothing"));

        assertOk(all);
        assertThat(all.out().lines().toList()).hasSize(3).first().asString().contains("ID").contains("REASON");
        assertThat(all.out()).contains("card declined: expired").contains("endpoint timed out");
        assertThat(byKind.out()).contains(Long.toString(declined)).doesNotContain("webhook");
        assertThat(byError.out()).contains("webhook").doesNotContain("charge_card").contains("(more: --before " + timedOut + ")");
        assertThat(none.out()).isEqualTo("No dead jobs match." + System.lineSeparator());

        Run retried = cli(db("dlq", "retry", Long.toString(declined)));
        assertOk(retried);
        assertThat(retried.out()).isEqualTo("replayed " + declined + System.lineSeparator());
        assertThat(docket.job(declined).orElseThrow().state()).isEqualTo(JobState.READY);

        Run again = cli(db("dlq", "retry", Long.toString(timedOut), Long.toString(declined)));
        assertFails(again, 1, "not replayed");
        assertThat(again.out()).isEqualTo("replayed " + timedOut + System.lineSeparator());
        assertThat(again.err()).contains(Long.toString(declined)).doesNotContain(Long.toString(timedOut));
    }

    /** The runbook from the command line: group by signature, patch the group, replay it by signature. */
    @Test
    void deadLettersAreGroupedRepairedAndReplayedBySignature(@TempDir Path dir) throws Exception {
        Docket docket = docket();
        List<Long> ids = new ArrayList<>();
        for (int order = 1; order <= 3; order++) {
            ids.add(docket.enqueue("charge_card", Map.of("order", order, "currency", "XXX")));
        }
        try (Worker w = docket.worker().queue("default", 4).pollInterval(Duration.ofMillis(50))
                .handler("charge_card", JsonNode.class, (p, ctx) -> {
                    throw new PermanentJobFailure("unknown currency 'XXX' for order " + p.get("order").asInt());
                })
                .start()) {
            ids.forEach(id -> awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(20)));
        }
        String signature = "PermanentJobFailure: unknown currency '?' for order <n>";

        Run groups = cli(db("dlq", "groups"));
        assertOk(groups);
        assertThat(groups.out().lines().toList()).hasSize(2).last().asString()
                .matches("\\s*3\\s+charge_card\\s+\\S+ \\S+\\s+" + java.util.regex.Pattern.quote(signature));
        Run listed = cli(db("dlq", "list", "--signature", signature));
        assertThat(listed.out().lines().toList()).hasSize(4);
        assertThat(cli(db("dlq", "list", "--signature", "nothing like it")).out()).startsWith("No dead jobs match.");

        Run dry = cli(db("dlq", "patch", "--kind", "charge_card", "--signature", signature,
                "--merge-patch", "{\"currency\": \"EUR\"}", "--dry-run"));
        assertOk(dry);
        assertThat(dry.out()).startsWith("dry run: would change 3 of 3 dead jobs");
        assertThat(docket.job(ids.getFirst()).orElseThrow().payload()).contains("XXX");

        Path patch = Files.writeString(dir.resolve("patch.json"), "{\"currency\": \"EUR\"}");
        Run patched = cli(db("dlq", "patch", "--kind", "charge_card", "--signature", signature,
                "--merge-patch", "@" + patch, "--by", "ada"));
        assertOk(patched);
        assertThat(patched.out()).startsWith("changed 3 of 3 dead jobs: " + ids.get(2) + " " + ids.get(1) + " " + ids.get(0));
        assertThat(JSON.readTree(docket.job(ids.getFirst()).orElseThrow().payload()).get("currency").asText()).isEqualTo("EUR");
        assertThat(docket.job(ids.getFirst()).orElseThrow().metadata()).contains("ada (cli)").contains("merge patch");

        Run repaired = cli(db("dlq", "repair", Long.toString(ids.getFirst()), "--payload", "{\"order\": 1, \"currency\": \"USD\"}"));
        assertOk(repaired);
        assertThat(repaired.out()).startsWith("repaired " + ids.getFirst());
        assertThat(docket.job(ids.getFirst()).orElseThrow().metadata()).contains("payload replaced");

        Run replay = cli(db("dlq", "replay", "--kind", "charge_card", "--signature", signature, "--rate", "50"));
        assertOk(replay);
        assertThat(replay.out()).matches("replay \\d+: 3 dead jobs match, replaying at 50/s\\R");
        assertThat(docket.admin().deadJobReplays()).singleElement().satisfies(r -> assertThat(r.signature()).isEqualTo(signature));

        assertFails(cli(db("dlq", "repair", "999999", "--payload", "{}")), 1, "no dead job 999999");
        assertFails(cli(db("dlq", "repair", "0", "--payload", "{}")), 2, "positive");
        assertFails(cli(db("dlq", "repair", Long.toString(ids.get(1)), "--payload", "{\"a\": 1, \"a\": 2}")), 2, "twice");
        assertFails(cli(db("dlq", "repair", Long.toString(ids.get(1)), "--payload", "@/no/such/file")), 2, "cannot read");
        assertFails(cli(db("dlq", "repair", Long.toString(ids.get(1)), "--payload", "{\"s\": \"" + "x".repeat(300 * 1024)
                + "\"}")), 2, "over the limit");
        assertFails(cli(db("dlq", "repair", Long.toString(ids.get(1)), "--payload", "{}", "--by", "a\u202eb")), 2, "repairedBy");
        assertFails(cli(db("dlq", "patch", "--kind", "charge_card", "--signature", signature, "--merge-patch", "[1]")),
                2, "JSON object");
        assertFails(cli(db("dlq", "patch", "--kind", "charge_card", "--signature", signature, "--merge-patch", "{}",
                "--max", "0")), 2, "max");
        assertFails(cli(db("dlq", "patch", "--kind", "charge_card", "--merge-patch", "{}")), 2, "--signature");
        assertFails(cli(db("dlq", "list", "--signature", "x".repeat(201))), 2, "signature");
        // One rule with the API and the dashboard: whole numbers from 1 to 10000.
        for (String rate : List.of("0", "10001", "0.5", "50000.5", "fast")) {
            Run r = cli(db("dlq", "replay", "--rate", rate));
            assertFails(r, 2, "--rate");
            assertThat(r.err()).contains("must be a whole number from 1 to 10000, was '" + rate + "'");
        }
        assertFails(cli(db("dlq", "groups", "--limit", "0")), 2, "limit");
        assertThat(JSON.readTree(docket.job(ids.get(1)).orElseThrow().payload()).get("currency").asText())
                .as("no refused repair changed anything").isEqualTo("EUR");
    }

    @Test
    void badInputGetsOneLineAndExitStatus2() {
        docket();
        assertFails(cli(db("stats", "--bogus")), 2, "Unknown option: '--bogus'");
        assertFails(cli("frobnicate"), 2, "frobnicate");
        assertFails(cli(), 2, "no command given");
        assertFails(cli("dlq"), 2, "dlq list");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{\"a\":")), 2, "not valid JSON");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{} trailing")), 2, "not valid JSON");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "")), 2, "empty");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "@/no/such/file.json")), 2, "cannot read");
        assertFails(cli(db("enqueue", "--payload", "{}")), 2, "--kind");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{}", "--delay", "soon")), 2, "--delay");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{}", "--delay", "5m", "--run-at",
                "2030-01-01T00:00:00Z")), 2, "not both");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{}", "--run-at", "tomorrow")), 2, "ISO-8601");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{}", "--queue", "bad queue")), 2, "queue");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{}", "--priority", "99999")), 2, "priority");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{}", "--priority", "high")), 2, "--priority");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{}", "--max-attempts", "0")), 2, "--max-attempts");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{\"s\":\"\\u0000\"}")), 2, "NUL");
        assertFails(cli(db("enqueue", "--kind", "k", "--payload", "{\"s\":\"" + "x".repeat(300 * 1024) + "\"}")),
                2, "over the limit");
        assertFails(cli(db("job", "abc")), 2, "'abc'");
        assertFails(cli(db("job", "0")), 2, "positive");
        assertFails(cli(db("job", "99999999999999999999")), 2, "99999999999999999999");
        assertFails(cli(db("dlq", "retry", "x")), 2, "'x'");
        assertFails(cli(db("dlq", "retry", "0")), 2, "positive");
        assertFails(cli(db("dlq", "list", "--limit", "0")), 2, "limit");
        assertFails(cli(db("worker", "--queue", "default=lots")), 2, "concurrency");
        assertFails(cli(db("worker", "--lease", "forever")), 2, "--lease");
        assertFails(cli("stats", "--database-url", this.db.jdbcUrl(), "--schema", "Bad-Schema"), 2, "schema");
        assertThat(liveAndAllJobs()).isZero();
    }

    private long liveAndAllJobs() {
        return queryLong("SELECT (SELECT count(*) FROM {s}.jobs) + (SELECT count(*) FROM {s}.dead_jobs)");
    }

    @Test
    @FreshSchema
    void databaseProblemsGetOneLine() {
        int port = URI.create(this.db.jdbcUrl().substring(5)).getPort();
        assertFails(cli("stats"), 2, "no database given");
        assertFails(cli("stats", "--database-url", "mysql://root@localhost/db"), 2, "postgres://");
        assertFails(cli("stats", "--database-url", "postgres://u:secret@localhost:notaport/db"), 2, "port");
        assertFails(cli("stats", "--database-url", "jdbc:postgresql://db:port/x"), 2, "PgJDBC");
        Run refused = cli("stats", "--database-url", "postgres://u:secret@127.0.0.1:1/db");
        assertFails(refused, 1, "refused");
        assertThat(refused.err()).doesNotContain("secret");
        assertFails(cli("stats", "--database-url", "postgres://u:secret@no-such-host.invalid/db"), 1, "unknown host");
        Run noRole = cli("stats", "--database-url", "postgres://no_such_role:secret@localhost:" + port + "/postgres");
        assertFails(noRole, 1, "no_such_role");
        assertThat(noRole.err()).doesNotContain("secret");
        assertFails(cli("stats", "--database-url", "postgresql://postgres@localhost:" + port + "/no_such_db"), 1,
                "no_such_db");
        assertFails(cli("stats", "--database-url", this.db.jdbcUrl(), "--schema", schema), 1, "docket migrate");
    }

    @Test
    void databaseUrlFromTheEnvironmentAndPostgresUrls() {
        docket();
        int port = URI.create(this.db.jdbcUrl().substring(5)).getPort();
        env.put("DOCKET_DATABASE_URL", "postgres://postgres:any%40password@localhost:" + port + "/postgres?sslmode=disable");

        assertOk(cli("stats", "--schema", schema));
        assertOk(cli("stats", "--schema", schema, "--database-url",
                "postgresql://localhost:" + port + "/postgres?user=postgres&password=x"));
        assertThat(DatabaseUrl.parse("postgres://a%3Ab:p%2Fw%40d@h1:5432,h2:5433/my%20db?sslmode=require&password=q"))
                .satisfies(u -> {
                    assertThat(u.user()).isEqualTo("a:b");
                    assertThat(u.password()).isEqualTo("q");
                    assertThat(u.jdbcUrl()).isEqualTo("jdbc:postgresql://h1:5432,h2:5433/my%20db?sslmode=require");
                    assertThat(u.toString()).doesNotContain("q").doesNotContain("p/w");
                });
        assertThat(DatabaseUrl.parse("postgres://u:p/w@d@db.example/app").password()).isEqualTo("p/w@d");
    }

    @Test
    void helpAndVersionOnEveryCommand() {
        List<List<String>> commands = List.of(List.of(), List.of("demo"), List.of("serve"), List.of("worker"),
                List.of("migrate"), List.of("enqueue"), List.of("job"), List.of("stats"), List.of("dlq"),
                List.of("dlq", "list"), List.of("dlq", "retry"));
        for (List<String> command : commands) {
            List<String> args = new ArrayList<>(command);
            args.add("--help");
            Run r = cli(args.toArray(String[]::new));
            assertOk(r);
            assertThat(r.out()).as(String.join(" ", args)).startsWith("Usage: docket");
        }
        assertThat(cli("worker", "--help").out()).contains("HandlerProvider").contains("--handlers");
        Run version = cli("--version");
        assertOk(version);
        assertThat(version.out()).startsWith("docket ").contains("schema version " + Docket.supportedSchemaVersion());
    }

    /** A handler provider for the worker test, loaded through --handlers and ServiceLoader. */
    public static final class RecordingHandlers implements HandlerProvider {
        static final Queue<String> SEEN = new ConcurrentLinkedQueue<>();
        static final AtomicInteger CONFIGURED = new AtomicInteger();

        @Override
        public void configure(Docket.Builder docket) {
            CONFIGURED.incrementAndGet();
        }

        @Override
        public void register(Worker.Builder worker) {
            worker.handler("recorded", JsonNode.class, (payload, ctx) -> SEEN.add(payload.path("name").asText()));
            worker.handler("thumbnail", JsonNode.class, (payload, ctx) -> SEEN.add("my thumbnail"));
        }
    }

    @Test
    void workerRunsDemoKindsAndProvidedHandlersUntilStopped(@TempDir Path dir) throws Exception {
        Docket docket = docket();
        Path services = dir.resolve("META-INF/services/" + HandlerProvider.class.getName());
        Files.createDirectories(services.getParent());
        Files.writeString(services, "# test provider\n" + RecordingHandlers.class.getName() + "\n");
        CliRunner cli = new CliRunner(env);
        WorkerCommand command = cli.command("worker");
        AtomicInteger exit = new AtomicInteger(-1);
        Thread thread = Thread.ofPlatform().start(() -> exit.set(cli.run(db("worker", "--queue", "default=4",
                "--queue", "email=2", "--lease", "5s", "--shutdown-grace", "1s", "--handlers", dir.toString())).exit()));

        long recorded = docket.enqueue("recorded", Map.of("name", "ada"));
        long thumbnail = docket.enqueue("thumbnail", new DemoHandlers.Thumbnail("img-1", 320));
        long email = docket.enqueue("send_email", new DemoHandlers.Email("a@b.c", "welcome"),
                dev.docket.JobOptions.builder().queue("email").build());
        long declined = docket.enqueue("charge_card", new DemoHandlers.Charge("o-1", 100, false));
        awaitState(docket, recorded, JobState.COMPLETED, Duration.ofSeconds(30));
        awaitState(docket, thumbnail, JobState.COMPLETED, Duration.ofSeconds(30));
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> docket.job(email).orElseThrow().state(),
                s -> s == JobState.COMPLETED || s == JobState.SCHEDULED);
        awaitState(docket, declined, JobState.DEAD, Duration.ofSeconds(30));
        command.stop();
        thread.join(Duration.ofSeconds(30));

        assertThat(exit.get()).as(cli.err.toString()).isZero();
        assertThat(RecordingHandlers.SEEN).contains("ada", "my thumbnail");
        assertThat(RecordingHandlers.CONFIGURED.get()).isPositive();
        assertThat(docket.job(declined).orElseThrow().deadReason()).contains("card declined");
        assertThat(cli.out.toString()).contains("queues default=4, email=2").contains(RecordingHandlers.class.getName())
                .contains("replace the demo's thumbnail").contains("docket worker stopped.");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'running'")).isZero();
    }

    @Test
    void serveAnswersWithTheGeneratedTokenUntilStopped() throws Exception {
        docket();
        CliRunner cli = new CliRunner(env);
        ServeCommand command = cli.command("serve");
        AtomicInteger exit = new AtomicInteger(-1);
        Thread thread = Thread.ofPlatform().start(() -> exit.set(cli.run(db("serve", "--port", "0")).exit()));

        Pattern banner = Pattern.compile("serving on (http://\\S+)/ .*\\R.*generated.*: ([0-9a-f]{64})");
        Matcher m = Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> banner.matcher(cli.out.toString()),
                Matcher::find);
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> stats = http.send(HttpRequest.newBuilder(URI.create(m.group(1) + "/api/stats"))
                .header("Authorization", "Bearer " + m.group(2)).build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(m.group(1) + "/api/stats")).build(),
                HttpResponse.BodyHandlers.ofString());
        command.stop();
        thread.join(Duration.ofSeconds(30));

        assertThat(stats.statusCode()).isEqualTo(200);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(exit.get()).as(cli.err.toString()).isZero();
        assertThat(cli.out.toString()).contains("docket serve stopped.");
    }

    @Test
    void serveRefusesAPublicAddressWithoutTokens() {
        docket();
        assertFails(cli(db("serve", "--host", "0.0.0.0", "--port", "0")), 2, "refusing to serve on 0.0.0.0");
        env.put("DOCKET_TOKENS", "admin");
        assertFails(cli(db("serve", "--port", "0")), 2, "DOCKET_TOKENS");
        env.put("DOCKET_TOKENS", "root:" + "x".repeat(32));
        assertFails(cli(db("serve", "--port", "0")), 2, "unknown role");
        env.put("DOCKET_TOKENS", "admin:short");
        assertFails(cli(db("serve", "--port", "0")), 2, "at least");
        env.remove("DOCKET_TOKENS");
        assertFails(cli(db("serve", "--port", "0", "--tokens-file", "/no/such/tokens")), 2, "tokens-file");
    }

    /** A whole-number option quotes its field's real range for a word, a fraction or a number out of range. */
    @Test
    void wholeNumberOptionsQuoteTheirRealRange() {
        docket();
        for (String priority : List.of("high", "40000", "-40000", "1.5", "99999999999")) {
            Run r = cli(db("enqueue", "--kind", "k", "--payload", "{}", "--priority", priority));
            assertFails(r, 2, "--priority");
            assertThat(r.err()).contains("must be a whole number from -32768 to 32767, was '" + priority + "'");
        }
        Run attempts = cli(db("enqueue", "--kind", "k", "--payload", "{}", "--max-attempts", "0"));
        assertFails(attempts, 2, "--max-attempts");
        assertThat(attempts.err()).contains("must be a whole number from 1 to 2147483647, was '0'");
        for (String permits : List.of("lots", "0", "1000001")) {
            Run r = cli(db("rate-limit", "set", "--kind", "k", "--permits", permits, "--period", "1s", "--create"));
            assertFails(r, 2, "--permits");
            assertThat(r.err()).contains("must be a whole number from 1 to 1000000, was '" + permits + "'");
        }
        assertThat(liveAndFinishedJobsIn(schema)).isZero();
    }

    private long liveAndFinishedJobsIn(String schema) {
        return queryLong("SELECT count(*) FROM {s}.jobs") + queryLong("SELECT count(*) FROM {s}.job_history");
    }
}
