package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Payloads, outputs and signal payloads encrypted at rest ({@link JobKind.Builder#encrypted}). */
class EncryptedPayloadTest extends DocketTest {

    record Parcel(String recipient, String phone) {
    }

    record Approval(String by) {
    }

    record Receipt(String signature) {
    }

    /** What must never be in the table in clear. */
    private static final String PHONE = "+44-20-7946-0958";

    private static final JobKind<Parcel> DELIVER = JobKind.of("deliver", Parcel.class).encrypted().build();

    private static final PayloadKey K1 = key("k1", 1);
    private static final PayloadKey K2 = key("k2", 2);

    private static PayloadKey key(String id, int seed) {
        byte[] bytes = new byte[32];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (seed * 31 + i);
        }
        return PayloadKey.of(id, bytes);
    }

    private Docket docketWith(PayloadKey... keys) {
        return docket(b -> b.payloadKeys(PayloadKeyProvider.of(List.of(keys))));
    }

    private String stored(String table, String column, long id) {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + column + "::text FROM " + schema + "." + table
                     + " WHERE " + (table.equals("signals") ? "job_id" : "id") + " = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("a row in %s for %d", table, id).isTrue();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String kid(String stored) throws Exception {
        return new ObjectMapper().readTree(stored).get("docket:encrypted").get("kid").asText();
    }

    @Test
    void anEncryptedPayloadIsUnreadableInTheTableAndReachesTheHandlerInClear() throws Exception {
        Docket docket = docketWith(K1);
        long id = docket.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();

        String row = stored("jobs", "payload", id);
        assertThat(row).doesNotContain(PHONE).doesNotContain("Ada").contains("docket:encrypted");
        assertThat(kid(row)).isEqualTo("k1");

        List<Parcel> seen = new CopyOnWriteArrayList<>();
        List<JobRun> runs = docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> seen.add(p)).runReadyJobs();
        assertThat(runs).singleElement().satisfies(r -> assertThat(r.completed()).isTrue());
        assertThat(seen).containsExactly(new Parcel("Ada", PHONE));

        JobInfo shown = docket.job(id).orElseThrow();
        assertThat(shown.payloadEncrypted()).isTrue();
        assertThat(shown.payload()).contains(PHONE);
        assertThat(stored("job_history", "payload", id)).doesNotContain(PHONE);
    }

    @Test
    void twoEncryptionsOfOnePayloadDiffer() {
        Docket docket = docketWith(K1);
        long a = docket.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        long b = docket.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        assertThat(stored("jobs", "payload", a)).as("a fresh IV per value").isNotEqualTo(stored("jobs", "payload", b));
    }

    @Test
    void payloadsRoundTripThroughAKeyRotationAndARemovedKeyFailsClearlyWithoutLosingTheJob() throws Exception {
        Docket before = docketWith(K1);
        long old = before.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        long orphan = before.enqueue(DELIVER, new Parcel("Grace", PHONE)).id();

        Docket rotated = docketWith(K1, K2);
        long fresh = rotated.enqueue(DELIVER, new Parcel("Hedy", PHONE)).id();
        assertThat(kid(stored("jobs", "payload", old))).isEqualTo("k1");
        assertThat(kid(stored("jobs", "payload", fresh))).as("the newest key encrypts").isEqualTo("k2");

        // The old key removed: a job still under it fails its attempt clearly and stays, to run once the key is back.
        Docket withoutK1 = docketWith(K2);
        List<String> seen = new CopyOnWriteArrayList<>();
        List<JobRun> runs = withoutK1.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> seen.add(p.recipient()))
                .runReadyJobs();
        assertThat(seen).containsExactly("Hedy");
        assertThat(runs).filteredOn(r -> r.jobId() == old || r.jobId() == orphan).hasSize(2).allSatisfy(r -> {
            assertThat(r.result()).isEqualTo(JobRun.Result.RETRYING);
            assertThat(r.error()).contains("key 'k1'").contains("does not have").doesNotContain(PHONE);
        });
        JobInfo waiting = withoutK1.job(orphan).orElseThrow();
        assertThat(waiting.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(waiting.payload()).as("no key here: not shown, never the ciphertext").isNull();
        assertThat(waiting.payloadEncrypted()).isTrue();

        assertThat(rotated.admin().retry(old)).isTrue();
        assertThat(rotated.admin().retry(orphan)).isTrue();
        List<JobRun> again = rotated.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> seen.add(p.recipient()))
                .runReadyJobs();
        assertThat(again).hasSize(2).allMatch(JobRun::completed);
        assertThat(seen).containsExactlyInAnyOrder("Hedy", "Ada", "Grace");
    }

    /** A key service that is down fails the attempt as a missing key does: retried, the job kept. */
    @Test
    void aProviderThatFailsIsAMissingKeyNotALostJob() {
        long id = docketWith(K1).enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        PayloadKeyProvider down = new PayloadKeyProvider() {
            @Override
            public PayloadKey current() {
                return K1;
            }

            @Override
            public java.util.Optional<PayloadKey> key(String keyId) {
                throw new IllegalStateException("kms unreachable for " + keyId);
            }
        };
        Docket docket = docket(b -> b.payloadKeys(down));
        assertThat(docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> { }).runReadyJobs())
                .singleElement().satisfies(r -> {
                    assertThat(r.result()).isEqualTo(JobRun.Result.RETRYING);
                    assertThat(r.error()).contains("provider failed").contains("IllegalStateException");
                });
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }

    @Test
    void outputsAndSignalPayloadsAreEncryptedToo() {
        Docket docket = docketWith(K1);
        long id = docket.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        assertThat(docket.signal(id, "approved", new Approval("signal-secret-by"))).isEqualTo(SignalDelivery.KEPT);
        assertThat(stored("signals", "payload", id)).doesNotContain("signal-secret-by").contains("docket:encrypted");

        List<Approval> read = new CopyOnWriteArrayList<>();
        docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> {
            read.add(ctx.signal("approved", Approval.class).orElseThrow());
            ctx.recordOutput(new Receipt("output-secret-signature"));
        }).runReadyJobs();

        assertThat(read).containsExactly(new Approval("signal-secret-by"));
        assertThat(stored("job_history", "output", id)).doesNotContain("output-secret-signature");
        JobInfo done = docket.job(id).orElseThrow();
        assertThat(done.output()).contains("output-secret-signature");
        assertThat(done.signals()).singleElement().satisfies(s -> assertThat(s.payload()).contains("signal-secret-by"));

        JobInfo keyless = docket().job(id).orElseThrow();
        assertThat(keyless.payloadEncrypted()).isTrue();
        assertThat(keyless.payload()).isNull();
        assertThat(keyless.output()).isNull();
        assertThat(keyless.signals()).singleElement().satisfies(s -> assertThat(s.payload()).isNull());
    }

    @Test
    void aDependentReadsAnEncryptedOutput() {
        Docket docket = docketWith(K1);
        long first = docket.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> ctx.recordOutput(new Receipt("sig-1")))
                .runReadyJobs();
        JobKind<Parcel> after = JobKind.of("after", Parcel.class).build();
        docket.enqueue(after, new Parcel("x", "y"));
        List<Receipt> got = new CopyOnWriteArrayList<>();
        docket.worker().queue("default", 1).handler(after, (p, ctx) -> got.add(ctx.output(first, Receipt.class)
                .orElseThrow())).runReadyJobs();
        assertThat(got).containsExactly(new Receipt("sig-1"));
    }

    @Test
    void aSignalToAnEncryptedJobIsRefusedWithoutKeysAndNothingIsStored() {
        long id = docketWith(K1).enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        Docket keyless = docket();
        assertThatThrownBy(() -> keyless.signal(id, "approved", new Approval("in-clear")))
                .isInstanceOf(EncryptedPayloadException.class).hasMessageContaining("no payload keys");
        assertThat(queryLong("SELECT count(*) FROM {s}.signals")).isZero();
        assertThatThrownBy(() -> keyless.admin().sendSignal(id, "approved", "{\"by\":\"in-clear\"}", "ops"))
                .isInstanceOf(EncryptedPayloadException.class);
        assertThat(queryLong("SELECT count(*) FROM {s}.signals")).isZero();
    }

    @Test
    void aTamperedCiphertextAWrongKeyOrAMovedValueFailsAuthenticationAndTheJobIsKeptDead() throws Exception {
        Docket docket = docketWith(K1);
        long tampered = docket.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        ObjectNode envelope = (ObjectNode) new ObjectMapper().readTree(stored("jobs", "payload", tampered));
        ObjectNode body = (ObjectNode) envelope.get("docket:encrypted");
        byte[] ct = Base64.getDecoder().decode(body.get("ct").asText());
        ct[0] ^= 1;
        body.put("ct", Base64.getEncoder().encodeToString(ct));
        setPayload(tampered, envelope.toString());

        // The same envelope pasted into a job of another encrypted kind: bound to its kind, it does not open there.
        JobKind<Parcel> other = JobKind.of("other", Parcel.class).encrypted().build();
        long moved = docket.enqueue(other, new Parcel("x", "y")).id();
        setPayload(moved, stored("jobs", "payload", docket.enqueue(DELIVER, new Parcel("Eve", PHONE)).id()));
        execute("DELETE FROM {s}.jobs WHERE kind = 'deliver' AND id <> " + tampered);

        List<JobRun> runs = docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> { })
                .handler(other, (p, ctx) -> { }).runReadyJobs();
        assertThat(runs).hasSize(2).allSatisfy(r -> {
            assertThat(r.result()).isEqualTo(JobRun.Result.DEAD);
            assertThat(r.error()).contains("failed authentication").doesNotContain(PHONE);
        });
        assertThat(docket.job(tampered).orElseThrow().state()).isEqualTo(JobState.DEAD);

        // A key of the right id but other bytes.
        long id = docket.enqueue(DELIVER, new Parcel("Ada", PHONE)).id();
        Docket wrong = docketWith(PayloadKey.of("k1", new byte[32]));
        assertThat(wrong.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> { }).runReadyJobs())
                .singleElement().satisfies(r -> {
                    assertThat(r.jobId()).isEqualTo(id);
                    assertThat(r.result()).isEqualTo(JobRun.Result.DEAD);
                    assertThat(r.error()).contains("failed authentication");
                });
    }

    private void setPayload(long id, String json) {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE " + schema + ".jobs SET payload = ?::jsonb WHERE id = ?")) {
            ps.setString(1, json);
            ps.setLong(2, id);
            assertThat(ps.executeUpdate()).isOne();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void withoutKeysAnEncryptedKindIsRefusedAtEnqueueAndNothingIsStoredInClear() {
        Docket keyless = docket(b -> b.encryptedKind("by-name"));
        assertThatThrownBy(() -> keyless.enqueue(DELIVER, new Parcel("Ada", PHONE)))
                .isInstanceOf(EncryptedPayloadException.class).hasMessageContaining("no payload keys")
                .hasMessageNotContaining(PHONE);
        assertThatThrownBy(() -> keyless.enqueue("by-name", new Parcel("Ada", PHONE)))
                .isInstanceOf(EncryptedPayloadException.class);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    @Test
    void aKindEncryptedByNameIsEncryptedOnTheStringForms() {
        Docket docket = docket(b -> b.encryptedKind("deliver").payloadKeys(PayloadKeyProvider.of(List.of(K1))));
        long id = docket.enqueue("deliver", new Parcel("Ada", PHONE));
        assertThat(stored("jobs", "payload", id)).doesNotContain(PHONE);
        long viaNewJob = docket.enqueueAll(List.of(NewJob.of("deliver", new Parcel("Ada", PHONE)))).getFirst();
        assertThat(stored("jobs", "payload", viaNewJob)).doesNotContain(PHONE);
    }

    @Test
    void aPlaintextPayloadOfAnEncryptedKindIsRefusedByTheWorkerUnlessTheKindAcceptsIt() {
        Docket docket = docketWith(K1);
        execute("SELECT {s}.enqueue('deliver', '{\"recipient\": \"Ada\", \"phone\": \"1\"}'::jsonb)");
        assertThat(docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> { }).runReadyJobs())
                .singleElement().satisfies(r -> {
                    assertThat(r.result()).isEqualTo(JobRun.Result.DEAD);
                    assertThat(r.error()).contains("stored in clear").contains("acceptPlaintext()");
                });

        execute("SELECT {s}.enqueue('deliver', '{\"recipient\": \"Ada\", \"phone\": \"2\"}'::jsonb)");
        JobKind<Parcel> lenient = DELIVER.toBuilder().acceptPlaintext().build();
        List<Parcel> seen = new CopyOnWriteArrayList<>();
        assertThat(docket.worker().queue("default", 1).handler(lenient, (p, ctx) -> seen.add(p)).runReadyJobs())
                .singleElement().satisfies(r -> assertThat(r.completed()).isTrue());
        assertThat(seen).containsExactly(new Parcel("Ada", "2"));
    }

    @Test
    void aPayloadInClearShapedLikeAnEnvelopeIsRefusedForAPlainKindAndEncryptedForAnEncryptedOne() {
        Docket docket = docketWith(K1);
        Map<String, Object> lookalike = Map.of("docket:encrypted", Map.of("v", 1, "kid", "k1"));
        assertThatThrownBy(() -> docket.enqueue("plain", lookalike))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserves");
        JobKind<Object> encrypted = JobKind.of("wrapped", Object.class).encrypted().build();
        long id = docket.enqueue(encrypted, lookalike).id();
        List<Object> seen = new CopyOnWriteArrayList<>();
        docket.worker().queue("default", 1).handler(encrypted, (p, ctx) -> seen.add(p)).runReadyJobs();
        assertThat(seen).containsExactly(lookalike);
        assertThat(docket.job(id).orElseThrow().payload()).contains("\"kid\"");
    }

    record V2(String who, String phone) {
    }

    @Test
    void upcastersRunOnTheDecryptedPayload() {
        JobKind<V2> v2 = JobKind.of("deliver", V2.class).encrypted().payloadVersion(2)
                .upcaster(1, tree -> ((ObjectNode) tree).put("who", tree.get("recipient").asText())).build();
        Docket docket = docketWith(K1);
        docket.enqueue(DELIVER, new Parcel("Ada", PHONE));
        List<V2> seen = new CopyOnWriteArrayList<>();
        docket.worker().queue("default", 1).handler(v2, (p, ctx) -> seen.add(p)).runReadyJobs();
        assertThat(seen).containsExactly(new V2("Ada", PHONE));
    }

    @Test
    void deadJobRepairReEncryptsWhereTheKeysAreAndIsRefusedWhereTheyAreNot() throws Exception {
        Docket docket = docketWith(K1, K2);
        long id = docket.enqueue(DELIVER, new Parcel("Ada", "wrong"), JobOptions.builder().maxAttempts(1).build()).id();
        docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> {
            throw new PermanentJobFailure("bad phone");
        }).runReadyJobs();

        String before = stored("dead_jobs", "payload", id);
        assertThatThrownBy(() -> docket().admin().repairDead(id, "{\"recipient\":\"Ada\",\"phone\":\"" + PHONE + "\"}", "ops"))
                .isInstanceOf(EncryptedPayloadException.class);
        assertThat(stored("dead_jobs", "payload", id)).as("unchanged").isEqualTo(before);

        assertThat(docket.admin().repairDead(id, "{\"recipient\":\"Ada\",\"phone\":\"" + PHONE + "\"}", "ops")).isTrue();
        assertThat(stored("dead_jobs", "payload", id)).doesNotContain(PHONE);
        assertThat(kid(stored("dead_jobs", "payload", id))).isEqualTo("k2");

        DeadJobQuery group = DeadJobQuery.all().withKind("deliver")
                .withSignature(docket.admin().deadJobGroups("deliver", 10).getFirst().signature());
        assertThat(docket.admin().repairDeadGroup(group, "{\"recipient\":\"Ada L.\"}", "ops", 10, false).changed())
                .containsExactly(id);
        assertThat(stored("dead_jobs", "payload", id)).doesNotContain("Ada L.");

        assertThat(docket.admin().retry(id)).isTrue();
        List<Parcel> seen = new CopyOnWriteArrayList<>();
        docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> seen.add(p)).runReadyJobs();
        assertThat(seen).as("replayed: the same kind, so the same binding").containsExactly(new Parcel("Ada L.", PHONE));
    }

    @Test
    void anOperatorsEditOfAnEncryptedPayloadIsEncryptedWhereTheKeysAreAndRefusedWhereTheyAreNot() throws Exception {
        Docket docket = docketWith(K1, K2);
        long id = docket.enqueue(DELIVER, new Parcel("Ada", "wrong"),
                JobOptions.builder().runAt(java.time.Instant.now().plus(java.time.Duration.ofHours(1))).build()).id();
        String before = stored("jobs", "payload", id);
        String edited = "{\"recipient\":\"Ada\",\"phone\":\"" + PHONE + "\"}";

        assertThatThrownBy(() -> docket().admin().editJob(id, JobEdit.builder().payload(edited).build(), "ops"))
                .isInstanceOf(EncryptedPayloadException.class);
        assertThat(stored("jobs", "payload", id)).as("unchanged where the keys are not").isEqualTo(before);

        assertThat(docket.admin().editJob(id, JobEdit.builder().payload(edited).runNow().build(), "ops").edited())
                .isTrue();
        assertThat(stored("jobs", "payload", id)).doesNotContain(PHONE);
        assertThat(kid(stored("jobs", "payload", id))).as("the current key").isEqualTo("k2");

        List<Parcel> seen = new CopyOnWriteArrayList<>();
        docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> seen.add(p)).runReadyJobs();
        assertThat(seen).containsExactly(new Parcel("Ada", PHONE));
    }

    @Test
    void aStoredScheduleOfAnEncryptedKindIsRefusedAsItsPayloadWouldSitInClear() {
        Docket docket = docket(b -> b.payloadKeys(PayloadKeyProvider.of(List.of(K1))).encryptedKind("deliver"));
        ScheduleDefinition nightly = ScheduleDefinition.of("nightly-delivery", "0 3 * * *", "deliver")
                .withPayloadJson("{\"recipient\":\"Ada\",\"phone\":\"" + PHONE + "\"}");

        assertThatThrownBy(() -> docket.admin().createSchedule(nightly, "ops"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("encrypted at rest");
        assertThat(docket.admin().schedules()).noneMatch(s -> s.name().equals("nightly-delivery"));
    }

    @Test
    void aPeriodicJobOfAnEncryptedKindIsEncryptedAnewAtEachSlot() {
        PeriodicJob every = new PeriodicJob("every-second", "* * * * * *", java.time.ZoneId.of("UTC"), "deliver",
                new Parcel("Ada", PHONE), JobOptions.defaults());
        assertThatThrownBy(() -> Docket.builder(dataSource()).schema(schema).kind(DELIVER).periodic(every).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs payload keys");

        Docket docket = docket(b -> b.kind(DELIVER).periodic(every).payloadKeys(PayloadKeyProvider.of(List.of(K1))));
        worker(docket, w -> w.queue("elsewhere", 1).handler("unrelated", Parcel.class, (p, ctx) -> { }));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                .until(() -> queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'deliver'") >= 2);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'deliver' AND payload::text LIKE '%" + PHONE + "%'"))
                .isZero();
        assertThat(queryLong("SELECT CASE WHEN count(DISTINCT payload -> 'docket:encrypted' ->> 'iv') = count(*) THEN 1"
                + " ELSE 0 END FROM {s}.jobs WHERE kind = 'deliver'")).as("a fresh IV per slot").isOne();
        List<Parcel> seen = new CopyOnWriteArrayList<>();
        docket.worker().queue("default", 1).handler(DELIVER, (p, ctx) -> seen.add(p)).runReadyJobs();
        assertThat(seen).isNotEmpty().allMatch(p -> p.equals(new Parcel("Ada", PHONE)));
    }

    @Test
    void malformedKeyConfigurationIsRefusedWithAClearMessageAndNoKeyText() {
        String good = Base64.getEncoder().encodeToString(new byte[32]);
        byte[] ones = new byte[32];
        java.util.Arrays.fill(ones, (byte) 1);
        String other = Base64.getEncoder().encodeToString(ones);
        String shortKey = Base64.getEncoder().encodeToString(new byte[16]);
        assertThatThrownBy(() -> PayloadKeyProvider.parse("k1:not*base64!")).hasMessageContaining("not valid base64")
                .hasMessageNotContaining("not*base64!");
        assertThatThrownBy(() -> PayloadKeyProvider.parse("k1:" + shortKey)).hasMessageContaining("must be 32 bytes")
                .hasMessageNotContaining(shortKey);
        assertThatThrownBy(() -> PayloadKeyProvider.parse("k1:" + good + ",k1:" + good)).hasMessageContaining("given twice");
        assertThatThrownBy(() -> PayloadKeyProvider.parse("k1" + good)).hasMessageContaining("not kid:base64key");
        assertThatThrownBy(() -> PayloadKeyProvider.parse("k1:" + good + ",")).hasMessageContaining("it is empty");
        assertThatThrownBy(() -> PayloadKeyProvider.parse("")).hasMessageContaining("empty");
        assertThatThrownBy(() -> PayloadKeyProvider.parse("bad id:" + good)).hasMessageContaining("key id");
        assertThatThrownBy(() -> PayloadKeyProvider.parse("*a:" + good + ",*b:" + good)).hasMessageContaining("mark one");

        PayloadKeyProvider marked = PayloadKeyProvider.parse(" *old:" + good + " , new:" + other + " ");
        assertThat(marked.current().id()).isEqualTo("old");
        assertThat(marked.key("new")).isPresent();
        assertThat(PayloadKeyProvider.parse("a:" + good + ",b:" + good).current().id()).as("newest last").isEqualTo("b");
        assertThat(marked.toString()).doesNotContain(good);
    }
}
