package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import dev.docket.testing.HookedDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The migrator and the schema it creates: applied once even when many nodes start together,
 * serialized on an advisory lock, refused by nodes of another version with a message that says
 * what to do, printable as one script, and the SQL enqueue function.
 */
@FreshSchema
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MigrationTest extends DocketTest {

    /** A Docket on this test's schema that has not migrated it. */
    private Docket unmigrated() {
        return unmigrated(dataSource());
    }

    private Docket unmigrated(DataSource dataSource) {
        return closeAfter(Docket.builder(dataSource).schema(schema).build());
    }

    private Worker.Builder someWorker(Docket docket) {
        return docket.worker().queue("default", 1).handler("k", JsonNode.class, (payload, ctx) -> { });
    }

    private static <T> CompletableFuture<T> async(java.util.concurrent.Callable<T> action) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().name("migration-test").start(() -> {
            try {
                f.complete(action.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    @Test
    void migrateAppliesTheSchemaOnceThenFindsNothingToDo() {
        Docket docket = unmigrated();
        assertThat(docket.schemaVersion()).isZero();

        int supported = Docket.supportedSchemaVersion();
        assertThat(supported).isPositive();

        assertThat(docket.migrate()).as("migrations applied to a fresh schema").isEqualTo(supported);
        assertThat(docket.migrate()).isZero();

        assertThat(queryLong("SELECT count(*) FROM {s}.schema_migrations")).isEqualTo(supported);
        assertThat(queryLong("SELECT count(DISTINCT version) FROM {s}.schema_migrations")).isEqualTo(supported);
        assertThat(queryLong("SELECT min(version) FROM {s}.schema_migrations")).isEqualTo(1);
        assertThat(queryLong("SELECT max(version) FROM {s}.schema_migrations")).isEqualTo(supported);
        assertThat(docket.schemaVersion()).isEqualTo(supported);
        assertThat(unmigrated().migrate()).as("another instance").isZero();
    }

    @Test
    void tenNodesMigratingAtOnceApplyTheMigrationOnce() throws Exception {
        int nodes = 10;
        List<Docket> dockets = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            dockets.add(unmigrated());
        }
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (Docket d : dockets) {
            results.add(async(() -> {
                go.await();
                return d.migrate();
            }));
        }
        go.countDown();

        List<Integer> applied = new ArrayList<>();
        for (CompletableFuture<Integer> r : results) {
            applied.add(r.get(60, TimeUnit.SECONDS));
        }

        int supported = Docket.supportedSchemaVersion();
        assertThat(applied.stream().mapToInt(Integer::intValue).sum()).as("migrations applied by all nodes together: %s",
                applied).isEqualTo(supported);
        assertThat(queryLong("SELECT count(*) FROM {s}.schema_migrations")).isEqualTo(supported);
        assertThat(queryLong("SELECT count(DISTINCT version) FROM {s}.schema_migrations")).isEqualTo(supported);
        assertThat(dockets).allSatisfy(d -> assertThat(d.schemaVersion()).isEqualTo(supported));
        long id = dockets.get(3).enqueue("k", null);
        assertThat(dockets.get(7).job(id)).isPresent();
    }

    @Test
    void anUnmigratedSchemaIsRefusedWithAMessageThatSaysWhatToRun() {
        Docket docket = unmigrated();

        assertThatThrownBy(() -> someWorker(docket).start())
                .isInstanceOf(DocketException.class)
                .hasMessageContaining("run docket.migrate()");
        assertThatThrownBy(() -> docket.enqueue("k", null))
                .isInstanceOf(DocketException.class)
                .hasMessageContaining("run docket.migrate()");
        assertThat(docket.schemaVersion()).isZero();
        assertThat(queryLong("SELECT count(*) FROM pg_namespace WHERE nspname = '{s}'")).isZero();
    }

    @Test
    void aSchemaNewerThanThisBuildIsRefused() {
        docket();
        execute("INSERT INTO {s}.schema_migrations (version, name) VALUES (99, 'V099__from_the_future.sql')");
        Docket docket = unmigrated();

        assertThat(docket.schemaVersion()).isEqualTo(99);
        assertThatThrownBy(() -> docket.enqueue("k", null))
                .isInstanceOf(DocketException.class)
                .hasMessageContaining("newer than");
        assertThatThrownBy(() -> someWorker(docket).start())
                .isInstanceOf(DocketException.class)
                .hasMessageContaining("newer than");
        assertThatThrownBy(docket::migrate)
                .isInstanceOf(DocketException.class)
                .hasMessageContaining("newer than");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT max(version) FROM {s}.schema_migrations")).isEqualTo(99);
    }

    @Test
    void theMigrationScriptAppliedByHandYieldsAUsableSchema() throws Exception {
        Docket docket = unmigrated();
        String script = docket.migrationSql();
        assertThat(script).contains("\"" + schema + "\".jobs").doesNotContain("{{");

        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute(script);
            c.commit();
            c.setAutoCommit(true);
        }

        assertThat(docket.schemaVersion()).isEqualTo(Docket.supportedSchemaVersion());
        CountDownLatch ran = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 1)
                .handler("k", JsonNode.class, (payload, ctx) -> ran.countDown()));
        long id = docket.enqueue("k", null);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(docket.migrate()).as("the script recorded its version").isZero();
    }

    // ---------------------------------------------------------------- the SQL enqueue function

    @Test
    void theSqlFunctionEnqueuesInTheCallersTransactionAndAWorkerRunsTheJob() throws Exception {
        Docket docket = docket();
        ConcurrentHashMap<Long, JsonNode> ran = new ConcurrentHashMap<>();
        Worker worker = worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofSeconds(60))
                .handler("k", JsonNode.class, (payload, ctx) -> ran.put(ctx.jobId(), payload)));
        await().atMost(Duration.ofSeconds(5)).until(worker::isListening);

        long id;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            try (Statement st = tx.createStatement();
                 ResultSet rs = st.executeQuery("SELECT * FROM " + schema + ".enqueue('k', '{\"a\":1}'::jsonb)")) {
                assertThat(rs.next()).isTrue();
                id = rs.getLong("id");
                assertThat(rs.getBoolean("inserted")).isTrue();
            }
            assertThat(stateInTx(tx, id)).isEqualTo("ready");
            assertThat(docket.job(id)).as("invisible before commit").isEmpty();
            tx.commit();
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> ran.containsKey(id));
        assertThat(ran.get(id).path("a").asInt()).isEqualTo(1);
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(5));
    }

    @Test
    void theSqlFunctionReturnsTheLiveJobForADuplicateUniqueKey() throws Exception {
        docket();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            long[] first = sqlEnqueue(tx, "SELECT * FROM {s}.enqueue('k', '{}'::jsonb, unique_key => 'u-1')");
            long[] second = sqlEnqueue(tx, "SELECT * FROM {s}.enqueue('k', '{\"b\":2}'::jsonb, unique_key => 'u-1')");
            tx.commit();
            assertThat(first[1]).as("first inserted").isEqualTo(1);
            assertThat(second[1]).as("second inserted").isZero();
            assertThat(second[0]).isEqualTo(first[0]);
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE unique_key = 'u-1'")).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE payload = '{}'::jsonb")).isEqualTo(1);
    }

    @Test
    void theSqlFunctionRejectsBadArgumentsWithSqlState22023() {
        docket();
        for (String call : List.of(
                "SELECT * FROM {s}.enqueue('', '{}'::jsonb)",
                "SELECT * FROM {s}.enqueue(NULL, '{}'::jsonb)",
                "SELECT * FROM {s}.enqueue('k', '{}'::jsonb, queue => 'bad queue!')",
                "SELECT * FROM {s}.enqueue('k', '{}'::jsonb, queue => '')",
                "SELECT * FROM {s}.enqueue('k', '{}'::jsonb, max_attempts => 0)",
                "SELECT * FROM {s}.enqueue('k', NULL::jsonb)")) {
            assertThatThrownBy(() -> {
                try (Connection c = dataSource().getConnection()) {
                    sqlEnqueue(c, call);
                }
            }).as(call).isInstanceOfSatisfying(SQLException.class,
                    e -> assertThat(e.getSQLState()).as(call + ": " + e.getMessage()).isEqualTo("22023"));
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    /**
     * Clients pass numbers as integers: psql's {@code priority => 5}, JDBC's setInt, most drivers'
     * ints. The function must accept them (a smallint-only parameter makes the call "not exist").
     */
    @Test
    void theSqlFunctionAcceptsAPlainIntegerPriority() throws Exception {
        docket();
        long id;
        try (Connection c = dataSource().getConnection()) {
            id = sqlEnqueue(c, "SELECT * FROM {s}.enqueue('k', '{}'::jsonb, priority => 5)")[0];
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT * FROM " + schema + ".enqueue('k', '{}'::jsonb, priority => ?)")) {
                ps.setInt(1, -3);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
        }
        assertThat(queryLong("SELECT priority FROM {s}.jobs WHERE id = ?", id)).isEqualTo(5);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE priority = -3")).isEqualTo(1);
    }

    private long[] sqlEnqueue(Connection c, String call) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(call.replace("{s}", schema))) {
            assertThat(rs.next()).isTrue();
            return new long[] {rs.getLong("id"), rs.getBoolean("inserted") ? 1 : 0};
        }
    }

    private String stateInTx(Connection tx, long id) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("SELECT state FROM " + schema + ".jobs WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    // ---------------------------------------------------------------- the migration lock

    @Test
    void migrateWaitsForAnotherNodeHoldingTheMigrationLock() throws Exception {
        Docket docket = unmigrated();
        try (Connection holder = dataSource().getConnection()) {
            holder.setAutoCommit(false);
            holdMigrationLock(holder);

            CompletableFuture<Integer> migrating = async(docket::migrate);
            assertStillWaiting(migrating, Duration.ofSeconds(1));
            holder.rollback();

            assertThat(migrating.get(30, TimeUnit.SECONDS)).isEqualTo(Docket.supportedSchemaVersion());
        }
        assertThat(docket.schemaVersion()).isEqualTo(Docket.supportedSchemaVersion());
    }

    /**
     * Applications often set a short {@code lock_timeout} for their role or pool. Waiting for another
     * node's migration is expected (the migrator only sets its own lock_timeout once it holds the
     * migration lock), so a node that starts while another migrates must not fail after 200 ms.
     */
    @Test
    void migrateWaitsForAnotherNodeEvenWhenSessionsHaveAShortLockTimeout() throws Exception {
        try (HikariDataSource pool = db.pool(2)) {
            Docket docket = unmigrated(HookedDataSource.withSessionSetting(pool, "SET lock_timeout = '200ms'"));
            try (Connection holder = dataSource().getConnection()) {
                holder.setAutoCommit(false);
                holdMigrationLock(holder);

                CompletableFuture<Integer> migrating = async(docket::migrate);
                assertStillWaiting(migrating, Duration.ofSeconds(1));
                holder.rollback();

                assertThat(migrating.get(30, TimeUnit.SECONDS)).isEqualTo(Docket.supportedSchemaVersion());
            }
        }
    }

    /** Asserts that {@code migrating} neither finishes nor fails during {@code period}. */
    private static void assertStillWaiting(CompletableFuture<Integer> migrating, Duration period) {
        await("migrate() waits behind the lock").during(period).atMost(period.plusSeconds(2))
                .until(() -> {
                    if (migrating.isCompletedExceptionally()) {
                        Throwable cause = migrating.handle((r, e) -> e).join();
                        throw new AssertionError("migrate() failed instead of waiting: " + cause, cause);
                    }
                    return !migrating.isDone();
                });
    }

    private void holdMigrationLock(Connection holder) throws SQLException {
        try (PreparedStatement ps = holder.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))")) {
            ps.setString(1, "docket.migrate." + schema);
            ps.execute();
        }
    }
}
