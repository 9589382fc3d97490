package dev.docket.internal.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The claim statement's plan: a short walk from the left edge of the partial claim index, whatever
 * else is in the tables and whatever the statistics say, run exactly once per statement, in
 * priority, run_at, id order; and heartbeats that are HOT updates.
 */
// Alone: a snapshot held by any other test's transaction keeps the heartbeats' old row versions from being
// pruned, and an update that finds no room on its page is not HOT.
@Isolated
class ClaimPlanTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration LEASE = Duration.ofSeconds(30);

    record Task(int n) {
    }

    // ---------------------------------------------------------------- plans

    @Test
    @Tag("load")
    void claimIsAShortIndexScanNextToAMillionHistoryRowsAndAMillionScheduledJobs() throws Exception {
        Docket docket = docket();
        long t0 = System.nanoTime();
        execute("""
                INSERT INTO {s}.job_history (id, queue, kind, payload, payload_version, priority, state, run_at,
                                             attempt, max_attempts, metadata, errors, created_at, attempted_at,
                                             finished_at)
                SELECT 10000000 + g, 'default', 'old', '{"n": 1}', 1, 0, 'completed', now(), 1, 20, '{}', '[]',
                       now(), now(), now()
                  FROM generate_series(1, 1000000) g""");
        execute("""
                INSERT INTO {s}.jobs (queue, kind, payload, priority, state, run_at, max_attempts)
                SELECT 'default', 'future', '{}', (g % 5) - 2, 'scheduled', now() + interval '1 day' + g * interval '1 s', 20
                  FROM generate_series(1, 1000000) g""");
        System.out.printf("ClaimPlanTest: 1M history rows and 1M scheduled jobs inserted in %d ms%n",
                (System.nanoTime() - t0) / 1_000_000);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history")).isEqualTo(1_000_000);
        assertThat(queryLong("SELECT count(*) FROM ONLY {s}.job_history_default")).as("rows in the day partition")
                .isZero();
        List<NewJob> ready = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ready.add(NewJob.of("ready", new Task(i), JobOptions.builder().priority(2 - i).build()));
        }
        docket.enqueueAll(ready);
        execute("ANALYZE {s}.jobs");
        execute("ANALYZE {s}.job_history");

        assertThat(new Statements(new SchemaName(schema)).get("jobClaim")).doesNotContain("job_history");
        checkPlans();
    }

    /**
     * A million jobs across 10,000 sequences: each key's head is running, the rest wait outside the
     * claim index, so the claim of five ready jobs is the same short index scan. The jobs are written
     * with SQL in the state the sequence triggers would give them (heads first, one per key).
     */
    @Test
    @Tag("load")
    void claimIsAShortIndexScanNextToAMillionJobsWaitingInTenThousandSequences() throws Exception {
        Docket docket = docket();
        execute("ALTER TABLE {s}.jobs DISABLE TRIGGER jobs_sequence_enter");
        execute("""
                INSERT INTO {s}.jobs (queue, kind, payload, state, run_at, max_attempts, attempt, lease_until,
                                      locked_by, sequence_key)
                SELECT 'default', 'ordered', '{}', CASE WHEN g <= 10000 THEN 'running' ELSE 'waiting' END, now(), 20,
                       CASE WHEN g <= 10000 THEN 1 ELSE 0 END,
                       CASE WHEN g <= 10000 THEN now() + interval '1 hour' END,
                       CASE WHEN g <= 10000 THEN 'w1' END, 'key-' || (g % 10000)
                  FROM generate_series(1, 1000000) g""");
        execute("ALTER TABLE {s}.jobs ENABLE TRIGGER jobs_sequence_enter");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'waiting'")).isEqualTo(990_000);
        List<NewJob> ready = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ready.add(NewJob.of("ready", new Task(i), JobOptions.builder().priority(2 - i).build()));
        }
        docket.enqueueAll(ready);
        execute("ANALYZE {s}.jobs");
        checkPlans();
    }

    /** {@link #checkPlans(Connection)} on a connection of its own, with the claim prepared there. */
    private void checkPlans() throws Exception {
        try (Connection c = dataSource().getConnection()) {
            prepareClaim(c);
            try {
                checkPlans(c);
            } finally {
                forgetClaim(c);
            }
        }
    }

    /** Plans (custom and generic) and analyzed runs of the claim while five jobs are ready. */
    private void checkPlans(Connection c) throws Exception {
        for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
            setPlanCacheMode(c, mode);
            JsonNode plan = explain(c, "COSTS true", 10);
            assertShortClaimIndexScan(plan, mode);

            c.setAutoCommit(false);
            try {
                JsonNode analyzed = explain(c, "ANALYZE true, BUFFERS true", 10);
                assertShortClaimIndexScan(analyzed, mode + ", analyzed");
                JsonNode scan = claimIndexScan(analyzed);
                assertThat(scan.path("Actual Loops").asDouble()).as("%s: the locking sub-select runs once", mode)
                        .isEqualTo(1);
                assertThat(scan.path("Actual Rows").asDouble()).as("%s: rows the index scan returned", mode)
                        .isEqualTo(5).isLessThanOrEqualTo(10);
                assertThat(scan.path("Rows Removed by Filter").asDouble(0)).as(mode).isZero();
                assertThat(scan.path("Shared Hit Blocks").asLong() + scan.path("Shared Read Blocks").asLong())
                        .as("%s: buffers the index scan touched", mode).isLessThan(20);
                assertThat(analyzed.path("Actual Rows").asDouble()).as("%s: jobs claimed", mode).isEqualTo(5);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    @Test
    @Tag("load")
    @FreshSchema
    void claimRightAfterABulkInsertBeforeAnyAnalyzeIsStillTheIndexScanInClaimOrder() throws Exception {
        Docket docket = docket();
        execute("ALTER TABLE {s}.jobs SET (autovacuum_enabled = false)");
        Instant dbNow = dbNow();
        int n = 100_000;
        List<NewJob> jobs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            jobs.add(NewJob.of("bulk", new Task(i), JobOptions.builder()
                    .priority((int) ((i * 7919L) % 5) - 2)
                    .runAt(dbNow.minusSeconds((i * 31L) % 100))
                    .build()));
        }
        long t0 = System.nanoTime();
        docket.enqueueAll(jobs);
        System.out.printf("ClaimPlanTest: enqueueAll of %d jobs took %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
        assertThat(queryLong("""
                SELECT count(*) FROM pg_stat_user_tables
                 WHERE schemaname = '{s}' AND relname = 'jobs'
                   AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)""")).as("jobs was analyzed").isZero();
        assertThat(queryLong("SELECT count(*) FROM pg_stats WHERE schemaname = '{s}' AND tablename = 'jobs'"))
                .as("column statistics of jobs").isZero();

        try (Connection c = dataSource().getConnection()) {
            prepareClaim(c);
            try {
                for (String mode : List.of("force_custom_plan", "force_generic_plan")) {
                    setPlanCacheMode(c, mode);
                    assertShortClaimIndexScan(explain(c, "COSTS true", 50), mode + ", no statistics");
                }
            } finally {
                forgetClaim(c);
            }
        }

        List<Long> expected = new ArrayList<>();
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(("SELECT id FROM {s}.jobs WHERE state = 'ready' AND queue = 'default' "
                     + "ORDER BY priority, run_at, id LIMIT 100").replace("{s}", schema))) {
            while (rs.next()) {
                expected.add(rs.getLong(1));
            }
        }
        Database store = new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
        long c0 = System.nanoTime();
        List<ClaimedJob> first = store.claims().claim("default", 50, LEASE, Map.of(), "bulk-claimer");
        long claimMicros = (System.nanoTime() - c0) / 1000;
        List<ClaimedJob> second = store.claims().claim("default", 50, LEASE, Map.of(), "bulk-claimer");
        System.out.printf("ClaimPlanTest: first claim of 50 after a bulk insert of %d took %d us%n", n, claimMicros);

        assertThat(first.stream().map(ClaimedJob::id).toList()).isEqualTo(expected.subList(0, 50));
        assertThat(second.stream().map(ClaimedJob::id).toList()).isEqualTo(expected.subList(50, 100));
        assertThat(first.getFirst().priority()).isEqualTo(-2);
        assertThat(queryLong("""
                SELECT count(*) FROM pg_stat_user_tables
                 WHERE schemaname = '{s}' AND relname = 'jobs'
                   AND (last_analyze IS NOT NULL OR last_autoanalyze IS NOT NULL)""")).as("jobs was analyzed").isZero();
    }

    // ---------------------------------------------------------------- order

    @Test
    void claimOrderIsPriorityThenRunAtThenId() throws Exception {
        Docket docket = docket();
        Instant now = dbNow();
        // Enqueued in an order that matches none of the claim's keys.
        long a = enqueue(docket, 0, now.minusSeconds(10));
        long b = enqueue(docket, 0, now.minusSeconds(20));
        long c = enqueue(docket, 0, now.minusSeconds(20));
        long d = enqueue(docket, -1, now.minusSeconds(5));
        long e = enqueue(docket, 5, now.minusSeconds(30));
        long f = enqueue(docket, -1, now.minusSeconds(5));
        List<Long> expected = List.of(d, f, b, c, a, e);

        Database store = new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
        List<Long> oneByOne = new ArrayList<>();
        for (int i = 0; i < expected.size(); i++) {
            List<ClaimedJob> claimed = store.claims().claim("default", 1, LEASE, Map.of(), "order-test");
            assertThat(claimed).hasSize(1);
            oneByOne.add(claimed.getFirst().id());
        }
        assertThat(store.claims().claim("default", 1, LEASE, Map.of(), "order-test")).isEmpty();
        assertThat(oneByOne).containsExactlyElementsOf(expected);
        assertThat(List.of(a, b, c, d, e, f)).isSorted();
    }

    @Test
    void aWorkerWithOneSlotRunsJobsInClaimOrder() {
        Docket docket = docket();
        Instant now = dbNow();
        long low = enqueue(docket, 5, now.minusSeconds(30));
        long mid = enqueue(docket, 0, now.minusSeconds(10));
        long high = enqueue(docket, -1, now.minusSeconds(1));
        Queue<Long> ran = new ConcurrentLinkedQueue<>();
        worker(docket, w -> w
                .queue("default", 1)
                .maxClaimBatch(1)
                .handler("ordered", Task.class, (task, ctx) -> ran.add(ctx.jobId())));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 3);
        assertThat(ran).containsExactly(high, mid, low);
    }

    // ---------------------------------------------------------------- heartbeat

    @Test
    @FreshSchema
    void heartbeatsAreHotUpdates() throws Exception {
        assumeTrue(db.serverMajorVersion() >= 15,
                "needs pg_stat_force_next_flush() (PostgreSQL 15+) to read table statistics without waiting");
        Docket docket = docket();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            jobs.add(NewJob.of("beat", new Task(i)));
        }
        docket.enqueueAll(jobs);
        // One connection, so that every heartbeat's statistics are flushed by pg_stat_force_next_flush().
        try (HikariDataSource one = db.pool(1)) {
            Database store = new Database(one, new SchemaName(schema), PayloadCodec.defaultMapper());
            List<Fence> fences = store.claims().claim("default", 10, LEASE, Map.of(), "hot-worker").stream()
                    .map(ClaimedJob::fence).toList();
            assertThat(fences).hasSize(10);
            long[] before = updateCounts(one);
            int beats = 300;
            for (int i = 0; i < beats; i++) {
                assertThat(store.outcomes().heartbeatMany("hot-worker", fences, Collections.nCopies(10, LEASE), false)).hasSize(10);
            }
            long[] after = updateCounts(one);
            long updates = after[0] - before[0];
            long hot = after[1] - before[1];
            System.out.printf("ClaimPlanTest: %d heartbeat row updates, %d of them HOT%n", updates, hot);
            assertThat(updates).isEqualTo(beats * 10L);
            assertThat(hot).as("HOT updates among %d heartbeat updates", updates).isGreaterThanOrEqualTo(updates * 95 / 100);
        }
    }

    /** {n_tup_upd, n_tup_hot_upd} of the jobs table, after flushing this backend's pending statistics. */
    private long[] updateCounts(HikariDataSource one) throws SQLException {
        try (Connection c = one.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT pg_stat_force_next_flush()");
            st.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet rs = st.executeQuery("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables "
                    + "WHERE schemaname = '" + schema + "' AND relname = 'jobs'")) {
                assertThat(rs.next()).isTrue();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    private long enqueue(Docket docket, int priority, Instant runAt) {
        return docket.enqueue("ordered", new Task(priority),
                JobOptions.builder().priority(priority).runAt(runAt).build());
    }

    private Instant dbNow() {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The claim's parameters in order, as PREPARE types and EXECUTE values: kinds with a lease of
     * their own and those leases (none here), the worker's lease, the worker, the queue, the limit.
     */
    private static final List<String> CLAIM_PARAMETER_TYPES =
            List.of("text[]", "bigint[]", "bigint", "text", "text", "text", "integer");

    private static String claimArguments(int limit) {
        return "'{}', '{}', 30000, 'plan-test', 'default', 'default', " + limit;
    }

    /** PREPAREs the claim exactly as Docket runs it, its JDBC parameters turned into $1, $2, ... */
    private void prepareClaim(Connection c) throws SQLException {
        String text = new Statements(new SchemaName(schema)).get("jobClaim");
        Matcher m = Pattern.compile("\\?").matcher(text);
        StringBuilder bound = new StringBuilder();
        int n = 0;
        while (m.find()) {
            m.appendReplacement(bound, Matcher.quoteReplacement("$" + ++n));
        }
        m.appendTail(bound);
        assertThat(n).as("parameters of the claim (update CLAIM_PARAMETER_TYPES when the claim changes)")
                .isEqualTo(CLAIM_PARAMETER_TYPES.size());
        try (Statement st = c.createStatement()) {
            st.execute("PREPARE docket_claim(" + String.join(", ", CLAIM_PARAMETER_TYPES) + ") AS " + bound);
        }
    }

    /** Leaves the pooled connection as it was found. */
    private static void forgetClaim(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.rollback();
            c.setAutoCommit(true);
        }
        try (Statement st = c.createStatement()) {
            st.execute("DEALLOCATE docket_claim");
            st.execute("RESET plan_cache_mode");
        }
    }

    private static void setPlanCacheMode(Connection c, String mode) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("SET plan_cache_mode = " + mode);
        }
    }

    private static JsonNode explain(Connection c, String options, int limit) throws Exception {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("EXPLAIN (" + options
                + ", FORMAT JSON) EXECUTE docket_claim(" + claimArguments(limit) + ")")) {
            rs.next();
            return JSON.readTree(rs.getString(1)).get(0).get("Plan");
        }
    }

    private static List<JsonNode> nodes(JsonNode plan) {
        List<JsonNode> all = new ArrayList<>();
        collect(plan, all);
        return all;
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        into.add(node);
        for (JsonNode child : node.path("Plans")) {
            collect(child, into);
        }
    }

    private static JsonNode claimIndexScan(JsonNode plan) {
        return nodes(plan).stream().filter(n -> "jobs_claim_idx".equals(n.path("Index Name").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no scan of jobs_claim_idx in " + plan.toPrettyString()));
    }

    /**
     * The claim's plan: an Update whose row source is the primary key (by the id array), fed by an
     * InitPlan that is Limit over LockRows over an index scan of jobs_claim_idx by queue (behind the
     * one-time filter of the queue's pause flag, a primary-key probe of the queues table), and by
     * one that only sets synchronous_commit; nothing else reads jobs, nothing sorts, nothing joins,
     * nothing touches job_history.
     */
    private static void assertShortClaimIndexScan(JsonNode plan, String what) {
        List<JsonNode> nodes = nodes(plan);
        String shown = what + ":\n" + plan.toPrettyString();
        assertThat(plan.path("Node Type").asText()).as(shown).isEqualTo("ModifyTable");
        assertThat(plan.path("Operation").asText()).as(shown).isEqualTo("Update");
        List<JsonNode> initPlans = new java.util.ArrayList<>();
        plan.path("Plans").forEach(n -> {
            if ("InitPlan".equals(n.path("Parent Relationship").asText())) {
                initPlans.add(n);
            }
        });
        assertThat(initPlans).as(shown).hasSize(2);
        JsonNode limit = initPlans.stream().filter(n -> "Limit".equals(n.path("Node Type").asText())).findFirst()
                .orElseThrow(() -> new AssertionError("no Limit InitPlan: " + shown));
        JsonNode asyncCommit = initPlans.stream().filter(n -> n != limit).findFirst().orElseThrow();
        assertThat(asyncCommit.path("Node Type").asText()).as("the synchronous_commit setting: " + shown).isEqualTo("Result");
        assertThat(asyncCommit.has("Plans")).as("the synchronous_commit setting reads nothing: " + shown).isFalse();
        assertThat(limit.path("Node Type").asText()).as(shown).isEqualTo("Limit");
        JsonNode lockRows = null;
        for (JsonNode child : limit.path("Plans")) {
            if ("LockRows".equals(child.path("Node Type").asText())) {
                lockRows = child;
            } else {
                assertThat(child.path("Index Name").asText()).as("the pause check: " + shown).isEqualTo("queues_pkey");
            }
        }
        assertThat(lockRows).as(shown).isNotNull();
        JsonNode scan = lockRows.path("Plans").get(0);
        if ("Result".equals(scan.path("Node Type").asText())) {
            assertThat(scan.path("One-Time Filter").asText()).as(shown).contains("NOT");
            scan = scan.path("Plans").get(0);
        }
        assertThat(scan.path("Node Type").asText()).as(shown).isEqualTo("Index Scan");
        assertThat(scan.path("Index Name").asText()).as(shown).isEqualTo("jobs_claim_idx");
        assertThat(scan.path("Scan Direction").asText()).as(shown).isEqualTo("Forward");
        assertThat(scan.path("Index Cond").asText()).as(shown).contains("queue");
        assertThat(nodes).as(shown).noneSatisfy(n -> assertThat(n.path("Node Type").asText())
                .isIn("Seq Scan", "Sort", "Incremental Sort", "Nested Loop", "Hash Join", "Merge Join", "Hash"));
        assertThat(nodes).as(shown).allSatisfy(n -> assertThat(n.path("Relation Name").asText("jobs")).isIn("jobs", "queues"));
        assertThat(nodes.stream().filter(n -> n.has("Index Name")).map(n -> n.path("Index Name").asText()))
                .as(shown).containsOnly("jobs_claim_idx", "jobs_pkey", "queues_pkey");
        JsonNode claimScan = scan;
        assertThat(nodes.stream().filter(n -> "jobs_claim_idx".equals(n.path("Index Name").asText())))
                .as(shown).containsExactly(claimScan);
        assertThat(plan.toString()).as(shown).doesNotContain("job_history");
    }
}
