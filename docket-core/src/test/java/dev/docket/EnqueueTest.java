package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.testing.CountingConnection;
import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import dev.docket.testing.Queries;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class EnqueueTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    record Email(String to) {
    }

    record Indexed(int index) {
    }

    /** A bean whose only property throws, with a secret in the exception, to check the secret stays out of errors. */
    public static final class Unwritable {
        public String getSecret() {
            throw new IllegalStateException("s3cr3t-token-in-getter");
        }
    }

    /** The job exists if and only if the caller's transaction commits; Docket never commits, ends or closes it. */
    @Test
    void enqueueInCallerTransactionExistsOnlyIfItCommits() throws Exception {
        Docket docket = docket();
        execute("CREATE TABLE {s}.orders (id int PRIMARY KEY)");
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            insertOrder(tx, 1);
            long txid = txid(tx);

            long rolledBack = docket.enqueue(tx, "send_email", new Email("a@b.c"), JobOptions.defaults());

            assertThat(tx.isClosed()).isFalse();
            assertThat(tx.getAutoCommit()).isFalse();
            assertThat(txid(tx)).as("still the caller's transaction").isEqualTo(txid);
            assertThat(count(tx, "SELECT count(*) FROM {s}.orders")).as("caller's own row, seen by the caller").isEqualTo(1);
            assertThat(count(tx, "SELECT count(*) FROM {s}.jobs WHERE id = " + rolledBack)).isEqualTo(1);
            assertThat(queryLong("SELECT count(*) FROM {s}.orders")).as("nothing committed yet").isZero();
            assertThat(docket.job(rolledBack)).as("job invisible before commit").isEmpty();

            tx.rollback();

            assertThat(docket.job(rolledBack)).isEmpty();
            assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();

            insertOrder(tx, 2);
            long committed = docket.enqueue(tx, "send_email", new Email("c@d.e"), JobOptions.defaults());
            assertThat(docket.job(committed)).isEmpty();
            tx.commit();

            JobInfo job = docket.job(committed).orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.READY);
            assertThat(job.kind()).isEqualTo("send_email");
            assertThat(JSON.readTree(job.payload())).isEqualTo(JSON.readTree("{\"to\":\"c@d.e\"}"));
            assertThat(queryLong("SELECT count(*) FROM {s}.orders")).isEqualTo(1);
            assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
        }
    }

    /** enqueueAll of 1,000 jobs uses two statements (the insert and its notification) and returns ids in input order. */
    @Test
    void enqueueAllReturnsDistinctIdsInInputOrderFromOneInsert() throws Exception {
        Docket docket = docket();
        List<NewJob> jobs = IntStream.range(0, 1000).mapToObj(i -> NewJob.of("indexed", new Indexed(i))).toList();
        List<Long> ids;
        int statements;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            CountingConnection counting = new CountingConnection(tx);
            ids = docket.enqueueAll(counting.connection(), jobs);
            statements = counting.statements();
            tx.commit();
        }
        assertThat(statements).as("statements for 1,000 jobs without unique keys (insert, notify)").isLessThanOrEqualTo(2);
        assertThat(ids).hasSize(1000).doesNotHaveDuplicates();
        for (int i = 0; i < ids.size(); i++) {
            JobInfo job = docket.job(ids.get(i)).orElseThrow();
            assertThat(JSON.readTree(job.payload()).get("index").asInt()).as("payload of id #%d", i).isEqualTo(i);
            assertThat(job.state()).isEqualTo(JobState.READY);
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1000);
    }

    /**
     * Bulk enqueues without unique keys take their ids from the sequence as they insert, and match them
     * to the input by order: four producers at once, their ids interleaved, each job's id still names
     * its own payload, queue and priority.
     */
    @Test
    void concurrentBulkEnqueuesMatchEveryIdToItsOwnJob() throws Exception {
        Docket docket = docket();
        ExecutorService producers = Executors.newFixedThreadPool(4);
        try {
            List<Future<List<Long>>> batches = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                int producer = p;
                batches.add(producers.submit(() -> {
                    List<Long> ids = new ArrayList<>();
                    for (int round = 0; round < 5; round++) {
                        int base = producer * 10_000 + round * 1_000;
                        ids.addAll(docket.enqueueAll(IntStream.range(0, 300).mapToObj(i -> NewJob.of("indexed",
                                new Indexed(base + i), JobOptions.builder().queue("q" + (i % 3)).priority(i % 5).build()))
                                .toList()));
                    }
                    return ids;
                }));
            }
            for (int p = 0; p < 4; p++) {
                List<Long> ids = batches.get(p).get(60, TimeUnit.SECONDS);
                assertThat(ids).hasSize(1500).doesNotHaveDuplicates();
                for (int k = 0; k < ids.size(); k++) {
                    int i = k % 300;
                    JobInfo job = docket.job(ids.get(k)).orElseThrow();
                    assertThat(JSON.readTree(job.payload()).get("index").asInt()).as("producer %d, job #%d", p, k)
                            .isEqualTo(p * 10_000 + (k / 300) * 1_000 + i);
                    assertThat(job.queue()).isEqualTo("q" + (i % 3));
                    assertThat(job.priority()).isEqualTo(i % 5);
                }
            }
        } finally {
            producers.shutdownNow();
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(6000);
    }

    /**
     * A bulk enqueue whose jobs share every option takes one statement with the options given once:
     * each job still gets all of them, scheduled by run-at or by a delay from the database's now().
     */
    @Test
    void bulkEnqueueWithSharedOptionsGivesEveryJobThem() throws Exception {
        Docket docket = docket();
        Instant later = Instant.parse("2090-01-01T00:00:00Z");
        JobOptions shared = JobOptions.builder().queue("mail").priority(7).maxAttempts(3).tenant("acme")
                .metadata("origin", "import").payloadVersion(2).runAt(later).build();
        List<Long> ids = docket.enqueueAll(IntStream.range(0, 50)
                .mapToObj(i -> NewJob.of("indexed", new Indexed(i), shared)).toList());
        List<Long> delayed = docket.enqueueAll(IntStream.range(0, 50).mapToObj(i -> NewJob.of("indexed",
                new Indexed(i), JobOptions.builder().delay(Duration.ofHours(1)).build())).toList());
        for (int i = 0; i < 50; i++) {
            JobInfo job = docket.job(ids.get(i)).orElseThrow();
            assertThat(JSON.readTree(job.payload()).get("index").asInt()).isEqualTo(i);
            assertThat(job.queue()).isEqualTo("mail");
            assertThat(job.priority()).isEqualTo(7);
            assertThat(job.maxAttempts()).isEqualTo(3);
            assertThat(job.tenant()).isEqualTo("acme");
            assertThat(job.payloadVersion()).isEqualTo(2);
            assertThat(JSON.readTree(job.metadata()).get("origin").asText()).isEqualTo("import");
            assertThat(job.runAt()).isEqualTo(later);
            assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
            JobInfo waiting = docket.job(delayed.get(i)).orElseThrow();
            assertThat(JSON.readTree(waiting.payload()).get("index").asInt()).isEqualTo(i);
            assertThat(waiting.state()).isEqualTo(JobState.SCHEDULED);
            assertThat(Duration.between(waiting.createdAt(), waiting.runAt())).isEqualTo(Duration.ofHours(1));
        }
    }

    /** A bulk enqueue is all or nothing: rolling back the caller's transaction leaves none of its jobs. */
    @Test
    void enqueueAllIsUndoneWholeByRollback() throws Exception {
        Docket docket = docket();
        List<NewJob> jobs = IntStream.range(0, 1000).mapToObj(i -> NewJob.of("indexed", new Indexed(i))).toList();
        List<Long> ids;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            ids = docket.enqueueAll(tx, jobs);
            assertThat(count(tx, "SELECT count(*) FROM {s}.jobs")).isEqualTo(1000);
            tx.rollback();
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(docket.job(ids.getFirst())).isEmpty();
        assertThat(docket.job(ids.getLast())).isEmpty();
        assertThat(docket.enqueueAll(List.of())).isEmpty();
    }

    /** Every job of a bulk enqueue is checked before anything is inserted: one bad job means none is enqueued. */
    @Test
    void enqueueAllWithOneInvalidJobInsertsNone() {
        Docket docket = docket();
        List<NewJob> jobs = new ArrayList<>();
        IntStream.range(0, 99).forEach(i -> jobs.add(NewJob.of("indexed", new Indexed(i))));
        jobs.add(NewJob.of("indexed", "x".repeat(300 * 1024)));

        assertThatIllegalArgumentException().isThrownBy(() -> docket.enqueueAll(jobs)).withMessageContaining("payload");

        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    /** A runAt in the future is SCHEDULED at exactly that instant; one in the past is READY. */
    @Test
    void runAtDecidesBetweenScheduledAndReady() {
        Docket docket = docket();
        Instant dbNow = dbNow();
        Instant future = dbNow.plus(Duration.ofHours(2));
        Instant past = dbNow.minus(Duration.ofMinutes(5));

        JobInfo scheduled = docket.job(docket.enqueue("k", null, JobOptions.builder().runAt(future).build())).orElseThrow();
        JobInfo ready = docket.job(docket.enqueue("k", null, JobOptions.builder().runAt(past).build())).orElseThrow();

        assertThat(scheduled.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(scheduled.runAt()).isEqualTo(future);
        assertThat(ready.state()).isEqualTo(JobState.READY);
        assertThat(ready.runAt()).isEqualTo(past);
    }

    /** A delay counts from the database's now() at enqueue, not from the JVM clock; a zero delay is READY. */
    @Test
    void delayCountsFromDatabaseNow() {
        Docket docket = docket();
        Instant before = dbNow();
        long delayed = docket.enqueue("k", null, JobOptions.builder().delay(Duration.ofHours(1)).build());
        Instant after = dbNow();
        long immediate = docket.enqueue("k", null, JobOptions.builder().delay(Duration.ZERO).build());

        JobInfo job = docket.job(delayed).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(job.runAt()).isBetween(before.plus(Duration.ofHours(1)), after.plus(Duration.ofHours(1)));
        assertThat(Duration.between(job.createdAt(), job.runAt())).isEqualTo(Duration.ofHours(1));
        assertThat(docket.job(immediate).orElseThrow().state()).isEqualTo(JobState.READY);
    }

    /** A unique key returns the live job's id (waiting or running) and is free again once that job completes. */
    @Test
    void uniqueKeyReturnsLiveJobUntilItCompletes() throws Exception {
        Docket docket = docket();
        JobOptions key42 = JobOptions.builder().uniqueKey("report:42").build();
        long first = docket.enqueue("report", new Email("first"), key42);

        assertThat(docket.enqueue("report", new Email("second"), key42)).isEqualTo(first);
        long other = docket.enqueue("report", null, JobOptions.builder().uniqueKey("report:43").build());
        assertThat(other).isNotEqualTo(first);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(2);
        assertThat(JSON.readTree(docket.job(first).orElseThrow().payload()).get("to").asText())
                .as("a duplicate enqueue does not overwrite the live job").isEqualTo("first");

        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 4)
                .handler("report", JsonNode.class, (payload, ctx) -> {
                    if (ctx.jobId() == first) {
                        started.countDown();
                        release.await();
                    }
                }));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(docket.job(first).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(docket.enqueue("report", new Email("third"), key42)).as("held while running").isEqualTo(first);

        release.countDown();
        awaitState(docket, first, JobState.COMPLETED, Duration.ofSeconds(10));

        long again = docket.enqueue("report", new Email("fourth"), key42);
        assertThat(again).as("key free once the holder completed").isNotEqualTo(first);
        assertThat(docket.job(again).orElseThrow().uniqueKey()).isEqualTo("report:42");
    }

    /** Duplicate keys inside one bulk enqueue collapse onto one job; every row gets that job's id. */
    @Test
    void uniqueKeyDuplicatedWithinOneBulkEnqueueInsertsOnce() {
        Docket docket = docket();
        JobOptions a = JobOptions.builder().uniqueKey("a").build();
        JobOptions b = JobOptions.builder().uniqueKey("b").build();

        List<Long> ids = docket.enqueueAll(List.of(NewJob.of("k", null, a), NewJob.of("k", null, b),
                NewJob.of("k", null, a), NewJob.of("k", null)));

        assertThat(ids.get(0)).isEqualTo(ids.get(2));
        assertThat(ids.get(1)).isNotEqualTo(ids.get(0));
        assertThat(ids.get(3)).isNotIn(ids.get(0), ids.get(1));
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(3);
    }

    /**
     * Concurrent enqueues of one key in separate transactions, some rolled back: exactly one live job
     * remains, every caller that committed got its id, and a caller whose insert won but rolled back
     * created nothing. The first caller inserts and holds its transaction until all others wait on its
     * row, so a winning insert that is rolled back is certain to happen.
     */
    @Test
    @Timeout(60)
    void concurrentUniqueEnqueuesLeaveExactlyOneLiveJob() throws Exception {
        Docket docket = docket();
        JobOptions contended = JobOptions.builder().uniqueKey("contended").build();
        int others = 19;
        ExecutorService callers = Executors.newFixedThreadPool(others);
        // Every connection is taken here, one after another, before anyone blocks. Taken by the callers at
        // once, CI on PostgreSQL 14 twice saw the pool stop at 20 connections while a caller waited past
        // the pool's timeout; the pool's growth under a burst is not what this test is about.
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < others + 2; i++) {
                connections.add(dataSource().getConnection());
            }
            Connection first = connections.get(0);
            Connection watcher = connections.get(1);
            first.setAutoCommit(false);
            long firstId = docket.enqueue(first, "contend", new Indexed(-1), contended);
            List<Future<long[]>> results = new ArrayList<>();
            for (int i = 0; i < others; i++) {
                boolean commit = i % 2 == 0;
                int index = i;
                Connection c = connections.get(i + 2);
                results.add(callers.submit(() -> {
                    c.setAutoCommit(false);
                    long id = docket.enqueue(c, "contend", new Indexed(index), contended);
                    if (commit) {
                        c.commit();
                    } else {
                        c.rollback();
                    }
                    return new long[] {id, commit ? 1 : 0};
                }));
            }
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> backendsWaitingOnJobsLock(watcher), n -> n == others);
            } catch (ConditionTimeoutException e) {
                throw new AssertionError("not every caller waits on the first one's row; callers that ended: "
                        + ended(results) + "; this database's other backends: " + Queries.rows(watcher, schema,
                        "SELECT pid, state, wait_event_type, wait_event, left(query, 120) AS query FROM pg_stat_activity "
                                + "WHERE datname = current_database() AND pid <> pg_backend_pid()"), e);
            }
            first.rollback();
            List<long[]> returned = new ArrayList<>();
            for (Future<long[]> f : results) {
                returned.add(f.get(30, TimeUnit.SECONDS));
            }

            List<Long> live = Queries.longs(dataSource(), schema, "SELECT id FROM {s}.jobs WHERE unique_key = 'contended'");
            assertThat(live).as("live jobs with the key").hasSize(1);
            long liveId = live.getFirst();
            assertThat(liveId).isNotEqualTo(firstId);
            assertThat(docket.job(firstId)).as("the rolled-back winner created nothing").isEmpty();
            for (long[] r : returned) {
                if (r[1] == 1) {
                    assertThat(r[0]).as("id returned to a committed caller").isEqualTo(liveId);
                } else if (r[0] != liveId) {
                    assertThat(docket.job(r[0])).as("id returned to a rolled-back caller").isEmpty();
                }
            }
            assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
        } finally {
            callers.shutdownNow();
            for (Connection c : connections) {
                c.close();
            }
        }
    }

    /** Each bad kind is refused with a message naming the rule, before anything reaches the database. */
    @Test
    void badKindsAreRejected() {
        Docket docket = docket();
        for (String kind : new String[] {"", "   ", "k".repeat(256), "bad\nkind", "nul\0kind", "tab\tkind", "bell\u0007"}) {
            assertThatIllegalArgumentException().as("kind %s", kind.replace("\0", "\\0"))
                    .isThrownBy(() -> docket.enqueue(kind, null))
                    .withMessageContaining("kind must be 1 to 255 characters without control characters");
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(docket.job(docket.enqueue("k".repeat(255), null)).orElseThrow().kind()).hasSize(255);
    }

    /** A null kind is refused like any other bad kind: an IllegalArgumentException naming the rule, not a bare NullPointerException. */
    @Test
    void nullKindIsRejectedAsIllegalArgument() {
        Docket docket = docket();
        assertThatIllegalArgumentException().isThrownBy(() -> docket.enqueue((String) null, null))
                .withMessageContaining("kind must be 1 to 255 characters");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.enqueueAll(List.of(NewJob.of((String) null, null))))
                .withMessageContaining("kind must be 1 to 255 characters");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    /** Bad queue names (including SQL) are refused by the options builder with a message naming the rule. */
    @Test
    void badQueuesAreRejected() {
        for (String queue : new String[] {null, "", "my queue", "q".repeat(129), "x'; DROP TABLE jobs;--", "émoji📧", "tab\t"}) {
            assertThatIllegalArgumentException().as("queue %s", queue)
                    .isThrownBy(() -> JobOptions.builder().queue(queue))
                    .withMessageContaining("queue must be 1 to 128 characters of A-Z a-z 0-9 _ . : -");
        }
        assertThat(JobOptions.builder().queue("q".repeat(128)).build().queue()).hasSize(128);
        assertThat(JobOptions.builder().queue("a-Z_0.9:x").build().queue()).isEqualTo("a-Z_0.9:x");
    }

    /** Priority, max attempts, delay, unique key and tenant out of range are refused with messages naming the value. */
    @Test
    void badOptionValuesAreRejected() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().priority(40000))
                .withMessage("priority must be between -32768 and 32767, was 40000");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().priority(-32769))
                .withMessageContaining("was -32769");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().maxAttempts(0))
                .withMessage("maxAttempts must be >= 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().delay(Duration.ofMillis(-1)))
                .withMessageContaining("delay must not be negative");
        for (String key : new String[] {"k".repeat(513), "a\0b", ""}) {
            assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueKey(key))
                    .withMessageContaining("uniqueKey must be 1 to 512 characters without NUL");
            assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().tenant(key))
                    .withMessageContaining("tenant must be 1 to 512 characters without NUL");
        }
        assertThat(JobOptions.builder().priority(32767).priority(-32768).maxAttempts(1)
                .uniqueKey("k".repeat(512)).tenant("t".repeat(512)).build().uniqueKey()).hasSize(512);
    }

    /** Payloads over the size limit (default 256 KiB of UTF-8 JSON, or a configured one) are refused; at the limit they are accepted. */
    @Test
    void payloadSizeLimitIsEnforcedInBytes() {
        Docket docket = docket();
        int limit = 256 * 1024;
        String overhead = "{\"s\":\"\"}";
        assertThatIllegalArgumentException()
                .isThrownBy(() -> docket.enqueue("k", Map.of("s", "x".repeat(limit - overhead.length() + 1))))
                .withMessageContaining("over the limit of 262144 bytes");
        assertThatIllegalArgumentException().as("bytes, not characters: 'é' is two bytes")
                .isThrownBy(() -> docket.enqueue("k", Map.of("s", "é".repeat(limit / 2))))
                .withMessageContaining("over the limit of 262144 bytes");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        long atLimit = docket.enqueue("k", Map.of("s", "x".repeat(limit - overhead.length())));
        assertThat(docket.job(atLimit)).isPresent();

        Docket small = closeAfter(Docket.builder(dataSource()).schema(schema).maxPayloadBytes(100).build());
        assertThatIllegalArgumentException()
                .isThrownBy(() -> small.enqueue("k", Map.of("s", "x".repeat(100 - overhead.length() + 1))))
                .withMessageContaining("over the limit of 100 bytes");
        assertThat(small.job(small.enqueue("k", Map.of("s", "x".repeat(100 - overhead.length()))))).isPresent();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(2);
    }

    /** Payloads Jackson cannot write, or that hold NUL, are refused; the message names the type, never the content. */
    @Test
    void unwritablePayloadsAreRejectedWithoutTheirContent() {
        Docket docket = docket();
        assertThatIllegalArgumentException().isThrownBy(() -> docket.enqueue("k", new Object()))
                .withMessageContaining("payload of type java.lang.Object cannot be written as JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.enqueue("k", new Unwritable()))
                .withMessageContaining("cannot be written as JSON")
                .withMessageNotContaining("s3cr3t-token-in-getter");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.enqueue("k", Map.of("s", "before\0s3cr3t")))
                .withMessageContaining("NUL")
                .withMessageNotContaining("s3cr3t");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    /** A rejected job inside the caller's transaction leaves that transaction usable, with its earlier work. */
    @Test
    void rejectedJobDoesNotAbortCallerTransaction() throws Exception {
        Docket docket = docket();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            long kept = docket.enqueue(tx, "k", null, JobOptions.defaults());
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> docket.enqueue(tx, "k", Map.of("s", "a\0b"), JobOptions.defaults()));
            tx.commit();
            assertThat(docket.job(kept)).isPresent();
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
    }

    /** Hostile but valid text (quotes, SQL, backslashes, unicode, emoji) round-trips unchanged through every field. */
    @Test
    void hostileButValidInputRoundTrips() throws Exception {
        Docket docket = docket();
        String kind = "it's \"quoted\" \\ back'); DROP TABLE jobs;-- 日本語 📧";
        String tenant = "tenant'); DROP TABLE jobs;-- ü 🚀";
        String uniqueKey = "key\"'\\; SELECT pg_sleep(10);-- ✓";
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("sql", "'); DROP TABLE jobs;--");
        payload.put("quotes", "\"double\" and 'single' and `back`");
        payload.put("backslash", "C:\\temp\\new");
        payload.put("unicode", "Grüße, 日本語, עברית, 😀👍🏽");
        payload.put("json", "{\"nested\": [1, 2]}");
        payload.put("big", Long.MAX_VALUE);
        payload.put("list", List.of("a", 1, true));

        long id = docket.enqueue(kind, payload, JobOptions.builder().tenant(tenant).uniqueKey(uniqueKey).build());

        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.kind()).isEqualTo(kind);
        assertThat(job.tenant()).isEqualTo(tenant);
        assertThat(job.uniqueKey()).isEqualTo(uniqueKey);
        assertThat(JSON.readTree(job.payload())).isEqualTo(JSON.valueToTree(payload));
        assertThat(docket.enqueue(kind, null, JobOptions.builder().uniqueKey(uniqueKey).build())).isEqualTo(id);
        assertThat(queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema + "' AND tablename = 'jobs'"))
                .isEqualTo(1);
    }

    /**
     * A string holding a backslash followed by "u0000" (six ordinary characters, e.g. a Windows path)
     * is valid JSON text for jsonb and must round-trip; only a real NUL character is refused.
     */
    @Test
    void escapedBackslashBeforeU0000IsNotMistakenForNul() throws Exception {
        Docket docket = docket();
        String path = "C:" + "\\" + "u0000" + "\\dir";
        assertThat(path).doesNotContain("\0").hasSize(12);
        String json = JSON.writeValueAsString(Map.of("path", path));
        assertThat(Queries.rows(dataSource(), schema, "SELECT ?::jsonb ->> 'path' AS path", json))
                .as("PostgreSQL's jsonb accepts this payload").containsExactly(Map.of("path", path));

        long id = docket.enqueue("k", Map.of("path", path));

        assertThat(JSON.readTree(docket.job(id).orElseThrow().payload()).get("path").asText()).isEqualTo(path);
    }

    /** Schema names are checked at configuration: only lower-case identifiers up to 63 characters, not pg_*. */
    @Test
    void badSchemaNamesAreRejected() {
        for (String name : new String[] {"Bad-Name", "x; drop", "x\"; DROP SCHEMA public;--", "pg_foo", "a".repeat(64), "",
                "1abc", null}) {
            assertThatIllegalArgumentException().as("schema %s", name)
                    .isThrownBy(() -> Docket.builder(dataSource()).schema(name))
                    .withMessageContaining("schema must");
        }
        assertThat(Docket.builder(dataSource()).schema("a".repeat(63)).build().schema()).hasSize(63);
    }

    /** Enqueueing into a schema that was never migrated says to run docket.migrate(), and leaves the caller's transaction usable. */
    @Test
    @FreshSchema
    void enqueueIntoUnmigratedSchemaSaysToMigrate() throws Exception {
        Docket docket = closeAfter(Docket.builder(dataSource()).schema(schema).build());

        assertThatThrownBy(() -> docket.enqueue("k", null))
                .isInstanceOf(DocketException.class)
                .hasMessageContaining("run docket.migrate()");
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            long txid = txid(tx);
            assertThatThrownBy(() -> docket.enqueue(tx, "k", null, JobOptions.defaults()))
                    .isInstanceOf(DocketException.class)
                    .hasMessageContaining("run docket.migrate()");
            assertThat(txid(tx)).as("caller's transaction not aborted").isEqualTo(txid);
            tx.rollback();
        }

        docket.migrate();
        assertThat(docket.job(docket.enqueue("k", null))).isPresent();
    }

    private long backendsWaitingOnJobsLock(Connection c) {
        return Queries.longs(c, schema, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                + "AND position(? in query) > 0", "\"" + schema + "\".jobs").getFirst();
    }

    private static List<String> ended(List<Future<long[]>> results) {
        List<String> ended = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Future<long[]> f = results.get(i);
            if (f.isDone()) {
                ended.add(i + ": " + f.state() + (f.state() == Future.State.FAILED ? " " + f.exceptionNow() : ""));
            }
        }
        return ended;
    }

    private Instant dbNow() {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void insertOrder(Connection tx, int id) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + schema + ".orders (id) VALUES (?)")) {
            ps.setInt(1, id);
            ps.executeUpdate();
        }
    }

    private static long txid(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT txid_current()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private long count(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql.replace("{s}", schema))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * A single enqueue commits before its notification goes out. If the notification then fails, the
     * enqueue still succeeds: reporting a failure would make the caller enqueue the job a second time.
     */
    @Test
    void aSingleEnqueueThatCommittedSucceedsThoughItsNotificationFails() {
        docket();
        javax.sql.DataSource failingNotify = (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, dataSource(), args);
                    return result instanceof Connection c ? notifyFailing(c) : result;
                });
        Docket docket = closeAfter(Docket.builder(failingNotify).schema(schema).build());

        long id = docket.enqueue("k", null);

        assertThat(docket.job(id)).hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.READY));
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
    }

    /** A connection whose pg_notify statements fail, as they would when the connection drops right after a commit. */
    private static Connection notifyFailing(Connection target) {
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && String.valueOf(args[0]).contains("pg_notify")) {
                        throw new SQLException("connection lost after the commit", "08006");
                    }
                    return invoke(method, target, args);
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
