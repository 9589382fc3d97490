package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter triage by error signature (groups, filters, replays) and payload repair before a
 * replay: one job edited, or a merge patch applied to a whole group, each recorded in the job.
 */
class DeadJobTriageTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final String DECLINED = "CardDeclined: card declined for customer <n>";

    record Charge(int customer, String currency) {
    }

    /**
     * Three jobs of one broken handler (different customers), one of another error, one of another
     * kind, dying in this order (groups of the same size list the latest death first).
     */
    private Docket triage() {
        Docket docket = docket();
        insertDeadJob(1, "charge", "{\"customer\": 17, \"currency\": \"EUR\"}", "com.acme.CardDeclined: card declined for customer 17");
        insertDeadJob(2, "charge", "{\"customer\": 4711, \"currency\": \"EUR\"}", "com.acme.CardDeclined: card declined for customer 4711");
        insertDeadJob(3, "charge", "{\"customer\": 99}", "com.acme.CardDeclined: card declined for customer 99");
        insertDeadJob(4, "charge", "{\"customer\": 5}", "java.net.SocketTimeoutException: connect timed out after 3000 ms");
        insertDeadJob(5, "refund", "{\"customer\": 5}", "com.acme.CardDeclined: card declined for customer 5");
        return docket;
    }

    private List<Long> ids(List<JobSummary> rows) {
        return rows.stream().map(JobSummary::id).toList();
    }

    private JsonNode payload(Docket docket, long id) throws Exception {
        return JSON.readTree(docket.job(id).orElseThrow().payload());
    }

    @Test
    void oneBrokenHandlerIsOneGroupPerKind() {
        Docket docket = triage();
        List<DeadJobGroup> groups = docket.admin().deadJobGroups(null, 10);
        assertThat(groups).extracting(DeadJobGroup::kind, DeadJobGroup::signature, DeadJobGroup::count).containsExactly(
                org.assertj.core.groups.Tuple.tuple("charge", DECLINED, 3L),
                org.assertj.core.groups.Tuple.tuple("refund", DECLINED, 1L),
                org.assertj.core.groups.Tuple.tuple("charge", "SocketTimeoutException: connect timed out after <n> ms", 1L));
        assertThat(groups.getFirst().error()).as("the newest job's first line, as an example")
                .isEqualTo("com.acme.CardDeclined: card declined for customer 99");
        assertThat(docket.admin().deadJobGroups("refund", 10)).singleElement()
                .satisfies(g -> assertThat(g.count()).isEqualTo(1));
        assertThat(docket.admin().deadJobGroups(null, 1)).hasSize(1);
    }

    @Test
    void jobsThatDieLaterAreSignedAtTheNextRead() {
        Docket docket = triage();
        assertThat(docket.admin().deadJobGroups("charge", 10).getFirst().count()).isEqualTo(3);
        insertDeadJob(6, "charge", "{}", "com.acme.CardDeclined: card declined for customer 123456");
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE error_signature IS NULL")).isEqualTo(1);
        assertThat(docket.admin().deadJobGroups("charge", 10).getFirst().count()).isEqualTo(4);
        assertThat(ids(docket.admin().deadJobs(DeadJobQuery.all().withSignature(DECLINED)))).containsExactly(6L, 5L, 3L, 2L, 1L);
    }

    @Test
    void listingsFilterBySignatureExactly() {
        Docket docket = triage();
        DeadJobQuery declined = DeadJobQuery.all().withSignature(DECLINED);
        assertThat(ids(docket.admin().deadJobs(declined))).containsExactly(5L, 3L, 2L, 1L);
        assertThat(ids(docket.admin().deadJobs(declined.withKind("charge")))).containsExactly(3L, 2L, 1L);
        assertThat(ids(docket.admin().deadJobs(declined.withKind("charge").withBefore(3L)))).containsExactly(2L, 1L);
        assertThat(docket.admin().deadJobs(DeadJobQuery.all().withSignature("CardDeclined"))).as("not a prefix match").isEmpty();
        assertThat(docket.admin().deadJobs(DeadJobQuery.all().withSignature("card declined for customer 17"))).isEmpty();
    }

    @Test
    void aReplayBySignatureTakesOnlyItsGroup() {
        Docket docket = triage();
        DeadJobReplay started = docket.admin().startDeadJobReplay(
                DeadJobQuery.all().withKind("charge").withSignature(DECLINED), 1000, 100);
        assertThat(started.matched()).isEqualTo(3);
        assertThat(started.signature()).isEqualTo(DECLINED);
        closeAfter(docket.worker().maintenanceInterval(Duration.ofMillis(100)).start());
        DeadJobReplay done = Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> docket.admin().deadJobReplay(started.id()).orElseThrow(), r -> r.state() == DeadJobReplay.State.DONE);
        assertThat(done.replayed()).isEqualTo(3);
        assertThat(ids(docket.admin().deadJobs(DeadJobQuery.all()))).containsExactly(5L, 4L);
    }

    @Test
    void signatureFiltersRefuseWhatCannotMatch() {
        for (String bad : new String[] {"", "x".repeat(201), "a\0b", "lone \ud800"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> DeadJobQuery.all().withSignature(bad))
                    .withMessageContaining("signature must be 1 to 200 characters");
        }
        assertThat(DeadJobQuery.all().withSignature("x".repeat(200)).signature()).hasSize(200);
    }

    @Test
    void aRepairedPayloadIsRecordedWithWhoAndWhen() throws Exception {
        Docket docket = triage();
        assertThat(docket.admin().repairDead(1, "{\"customer\": 17, \"currency\": \"EUR\", \"card\": \"backup\"}", "ada"))
                .isTrue();
        JobInfo job = docket.job(1).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.DEAD);
        assertThat(payload(docket, 1)).isEqualTo(JSON.readTree("{\"customer\": 17, \"currency\": \"EUR\", \"card\": \"backup\"}"));
        JsonNode repairs = JSON.readTree(job.metadata()).get("docket.repairs");
        assertThat(repairs).hasSize(1);
        assertThat(repairs.get(0).get("by").asText()).isEqualTo("ada");
        assertThat(repairs.get(0).get("how").asText()).isEqualTo("payload replaced");
        assertThat(repairs.get(0).get("at").asText()).isNotBlank();
        assertThat(repairs.toString()).as("the record never holds the payload").doesNotContain("backup");

        assertThat(docket.admin().repairDead(1, "{\"customer\": 17}", "grace")).isTrue();
        assertThat(JSON.readTree(docket.job(1).orElseThrow().metadata()).get("docket.repairs"))
                .extracting(r -> r.get("by").asText()).containsExactly("ada", "grace");

        assertThat(docket.admin().repairDead(999, "{}", "ada")).as("no such dead job").isFalse();
        assertThat(docket.admin().replayDead(List.of(1L))).containsExactly(1L);
        assertThat(docket.admin().repairDead(1, "{}", "ada")).as("a replayed job is no longer dead").isFalse();
        assertThat(JSON.readTree(docket.job(1).orElseThrow().metadata()).get("docket.repairs"))
                .as("the record goes with the job").hasSize(2);
    }

    @Test
    void repairsKeepNumbersExactly() throws Exception {
        Docket docket = triage();
        docket.admin().repairDead(1, "{\"amount\": 1.10, \"big\": 12345678901234567890.000001}", "ada");
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = 1 AND payload::text = ?",
                "{\"big\": 12345678901234567890.000001, \"amount\": 1.10}")).isEqualTo(1);
        docket.admin().repairDeadGroup(DeadJobQuery.all().withKind("charge").withSignature(DECLINED),
                "{\"note\": \"x\"}", "ada", 10, false);
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = 1 AND payload::text = ?",
                "{\"big\": 12345678901234567890.000001, \"note\": \"x\", \"amount\": 1.10}")).isEqualTo(1);
    }

    @Test
    void aMergePatchRepairsAWholeGroupAndNothingElse() throws Exception {
        Docket docket = triage();
        DeadJobQuery group = DeadJobQuery.all().withKind("charge").withSignature(DECLINED);
        DeadJobRepair repair = docket.admin().repairDeadGroup(group,
                "{\"currency\": \"USD\", \"retryWith\": {\"card\": \"backup\"}}", "ops", 100, false);
        assertThat(repair.matched()).isEqualTo(3);
        assertThat(repair.changed()).containsExactly(3L, 2L, 1L);
        assertThat(payload(docket, 2)).isEqualTo(JSON.readTree(
                "{\"customer\": 4711, \"currency\": \"USD\", \"retryWith\": {\"card\": \"backup\"}}"));
        assertThat(payload(docket, 3).get("currency").asText()).isEqualTo("USD");
        assertThat(payload(docket, 4)).as("another signature").isEqualTo(JSON.readTree("{\"customer\": 5}"));
        assertThat(payload(docket, 5)).as("another kind").isEqualTo(JSON.readTree("{\"customer\": 5}"));
        assertThat(JSON.readTree(docket.job(3).orElseThrow().metadata()).get("docket.repairs").get(0).get("how").asText())
                .isEqualTo("merge patch");

        DeadJobRepair again = docket.admin().repairDeadGroup(group, "{\"currency\": \"USD\", \"retryWith\": {\"card\": \"backup\"}}",
                "ops", 100, false);
        assertThat(again.matched()).isEqualTo(3);
        assertThat(again.changed()).as("a patch applied twice changes nothing the second time").isEmpty();
        assertThat(JSON.readTree(docket.job(3).orElseThrow().metadata()).get("docket.repairs")).hasSize(1);

        DeadJobRepair removal = docket.admin().repairDeadGroup(group, "{\"retryWith\": null}", "ops", 2, false);
        assertThat(removal.matched()).as("at most max, newest first").isEqualTo(2);
        assertThat(removal.changed()).containsExactly(3L, 2L);
        assertThat(payload(docket, 1).has("retryWith")).isTrue();
        assertThat(payload(docket, 2).has("retryWith")).isFalse();
    }

    @Test
    void aDryRunChangesNothing() throws Exception {
        Docket docket = triage();
        DeadJobRepair dry = docket.admin().repairDeadGroup(DeadJobQuery.all().withKind("charge").withSignature(DECLINED),
                "{\"currency\": \"EUR\"}", "ops", 100, true);
        assertThat(dry.dryRun()).isTrue();
        assertThat(dry.matched()).isEqualTo(3);
        assertThat(dry.changed()).as("jobs 1 and 2 have EUR already").containsExactly(3L);
        assertThat(payload(docket, 3)).isEqualTo(JSON.readTree("{\"customer\": 99}"));
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE metadata -> 'docket.repairs' IS NOT NULL")).isZero();
    }

    @Test
    void aPatchThatBreaksOnePayloadChangesNone() throws Exception {
        Docket docket = docket(b -> b.maxPayloadBytes(200));
        insertDeadJob(1, "charge", "{\"customer\": 1, \"notes\": \"" + "n".repeat(120) + "\"}", "CardDeclined: customer 1");
        insertDeadJob(2, "charge", "{\"customer\": 2}", "CardDeclined: customer 2");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.admin().repairDeadGroup(
                        DeadJobQuery.all().withKind("charge").withSignature("CardDeclined: customer <n>"),
                        "{\"extra\": \"" + "e".repeat(60) + "\"}", "ops", 10, false))
                .withMessageStartingWith("job 1: the patched payload is ").withMessageContaining("over the limit of 200 bytes")
                .withMessageNotContaining("nnnn");
        assertThat(payload(docket, 2)).as("all or nothing").isEqualTo(JSON.readTree("{\"customer\": 2}"));
    }

    @Test
    void hostileRepairsAreRefused() {
        Docket docket = docket(b -> b.maxPayloadBytes(100));
        insertDeadJob(1, "charge", "{\"customer\": 1}", "CardDeclined: customer 1");
        DocketAdmin admin = docket.admin();
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "{\"a\": \"" + "x".repeat(200) + "\"}", "ada"))
                .withMessageContaining("over the limit of 100 bytes");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "{\"a\": ", "ada"))
                .withMessageStartingWith("payload is not valid JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "{} {}", "ada"))
                .withMessageStartingWith("payload is not valid JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "{\"a\": 1, \"a\": 2}", "ada"))
                .withMessageStartingWith("payload has a field name twice");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "{\"a\": \"\\ud800\"}", "ada"))
                .withMessageContaining("unpaired UTF-16 surrogate");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "{\"a\\u0000\": 1}", "ada"))
                .withMessageContaining("NUL");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "", "ada")).withMessageContaining("empty");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, null, "ada"));
        for (String by : new String[] {null, "", "  ", "x".repeat(201), "a\nb", "zero\u200bwidth", "lone \ud800"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDead(1, "{}", by))
                    .withMessageContaining("repairedBy must be 1 to 200 printable characters");
        }
        DeadJobQuery group = DeadJobQuery.all().withKind("charge").withSignature("CardDeclined: customer <n>");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDeadGroup(DeadJobQuery.all().withKind("charge"),
                "{}", "ops", 10, false)).withMessageContaining("a kind and a signature");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDeadGroup(group, "[1]", "ops", 10, false))
                .withMessageStartingWith("mergePatch must be a JSON object");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDeadGroup(group, "null", "ops", 10, false))
                .withMessageStartingWith("mergePatch must be a JSON object");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDeadGroup(group, "{", "ops", 10, false))
                .withMessageStartingWith("mergePatch is not valid JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDeadGroup(group, "{}", "ops", 0, false))
                .withMessageContaining("max must be between 1 and 10000");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.repairDeadGroup(group, "{}", "ops", 10_001, false));
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE payload = '{\"customer\": 1}' AND metadata = '{}'"))
                .as("nothing was changed by any refused repair").isEqualTo(1);
    }

    /** The runbook end to end: a handler breaks on a payload, the group is patched, replayed, and runs. */
    @Test
    void patchThenReplayRunsTheRepairedJobs() {
        Docket docket = docket();
        Set<Integer> charged = ConcurrentHashMap.newKeySet();
        for (int customer = 1; customer <= 3; customer++) {
            docket.enqueue("charge", new Charge(customer, "XXX"));
        }
        worker(docket, w -> w.queue("default", 2).maintenanceInterval(Duration.ofMillis(100))
                .handler("charge", Charge.class, (c, ctx) -> {
                    if (c.currency().equals("XXX")) {
                        throw new PermanentJobFailure("unknown currency 'XXX' for customer " + c.customer());
                    }
                    charged.add(c.customer());
                }));
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> queryLong("SELECT count(*) FROM {s}.dead_jobs") == 3);
        DeadJobGroup group = docket.admin().deadJobGroups("charge", 10).getFirst();
        assertThat(group.signature()).isEqualTo("PermanentJobFailure: unknown currency '?' for customer <n>");
        DeadJobQuery filter = DeadJobQuery.all().withKind(group.kind()).withSignature(group.signature());
        assertThat(docket.admin().repairDeadGroup(filter, "{\"currency\": \"EUR\"}", "ops", 100, false).changed()).hasSize(3);
        docket.admin().startDeadJobReplay(filter, 100, 100);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> charged.size() == 3);
    }
}
