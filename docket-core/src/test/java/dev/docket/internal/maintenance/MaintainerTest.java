package dev.docket.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.JobError;
import dev.docket.JobInfo;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.NewJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import dev.docket.testing.HookedDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.parallel.Isolated;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The maintainer's rounds, called directly: promotion of due scheduled jobs, rescue of expired
 * leases (in pages, past rows it cannot take), and housekeeping of history partitions and dead jobs.
 * Times are set with the database clock.
 */
// Alone: a snapshot held by any other test's transaction keeps a vacuum from removing the dead rows.
@Isolated
@FreshSchema
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MaintainerTest extends DocketTest {

    /**
     * How long a test waits for the maintainer's next vacuum: a round waits three times the last vacuum's
     * duration after it (and for the server's dead-row count), which is seconds on a loaded CI machine.
     */
    private static final Duration NEXT_VACUUM_ROUND = Duration.ofSeconds(60);

    private Docket docket;
    private Maintainer maintainer;

    record Task(int n) {
    }

    @BeforeEach
    void setUp() {
        docket = docket();
        maintainer = new Maintainer(new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper()),
                Duration.ofSeconds(1), Duration.ofDays(7), Duration.ofDays(30));
    }

    private List<Long> enqueue(String kind, int count, JobOptions options) {
        List<NewJob> jobs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            jobs.add(NewJob.of(kind, new Task(i), options));
        }
        return docket.enqueueAll(jobs);
    }

    private static JobOptions inAnHour() {
        return JobOptions.builder().delay(Duration.ofHours(1)).build();
    }

    // ---------------------------------------------------------------- promotion

    /**
     * Runs a statement and waits until the statistics system shows at least {@code atLeast} dead rows
     * in the jobs table. A session reports its statistics when it goes idle, at most every 500 ms
     * (before PostgreSQL 15) or every second: it is asked to flush at once where it can, and it runs a
     * trivial statement while the test waits so that it goes idle again.
     */
    private void executeAndAwaitDeadRows(String statement, long atLeast) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            if (db.serverMajorVersion() >= 15) {
                st.execute("SELECT pg_stat_force_next_flush()");
            }
            st.execute(statement.replace("{s}", schema));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        st.execute("SELECT 1");
                        return deadRows() >= atLeast;
                    });
        }
    }

    /** Enqueues and deletes as many jobs as make the maintainer's vacuum due, and waits until the statistics show them. */
    private void leaveDeadRowsEnoughForAVacuum() throws SQLException {
        enqueue("k", (int) Maintainer.VACUUM_DEAD_ROWS, JobOptions.defaults());
        executeAndAwaitDeadRows("DELETE FROM {s}.jobs", Maintainer.VACUUM_DEAD_ROWS);
    }

    private long deadRows() {
        return queryLong("SELECT pg_stat_get_dead_tuples('" + schema + ".jobs'::regclass)");
    }

    private long vacuumCount() {
        return queryLong("SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = '" + schema + ".jobs'::regclass");
    }

    /**
     * The maintainer vacuums the jobs table itself once it holds {@code VACUUM_DEAD_ROWS} dead rows
     * (autovacuum may be a minute away); fewer are left to autovacuum. Autovacuum is off for the
     * table here, so the only vacuum is the maintainer's.
     */
    @Test
    void aJobsTableFullOfDeadRowsIsVacuumedByTheMaintainer() throws Exception {
        execute("ALTER TABLE {s}.jobs SET (autovacuum_enabled = false)");
        enqueue("k", 100, JobOptions.defaults());
        executeAndAwaitDeadRows("DELETE FROM {s}.jobs", 100);
        long vacuums = vacuumCount();
        assertThat(maintainer.vacuumIfDue()).as("100 dead rows are left to autovacuum").isFalse();

        leaveDeadRowsEnoughForAVacuum();
        assertThat(maintainer.vacuumIfDue()).isTrue();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> vacuumCount() == vacuums + 1);
        assertThat(deadRows()).isZero();
    }

    /** A vacuum that finds the table locked (autovacuum, DDL) is skipped without waiting, and done at a later round. */
    @Test
    void aLockedJobsTableIsVacuumedAtALaterRound() throws Exception {
        execute("ALTER TABLE {s}.jobs SET (autovacuum_enabled = false)");
        leaveDeadRowsEnoughForAVacuum();
        long vacuums = vacuumCount();
        try (Connection holder = dataSource().getConnection(); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("LOCK TABLE " + schema + ".jobs IN SHARE UPDATE EXCLUSIVE MODE");
            assertThat(maintainer.vacuumIfDue()).isFalse();
            holder.rollback();
        }
        org.awaitility.Awaitility.await("a later round vacuums").atMost(NEXT_VACUUM_ROUND)
                .until(maintainer::vacuumIfDue);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> vacuumCount() == vacuums + 1);
    }

    private long pages() {
        return queryLong("SELECT pg_relation_size('" + schema + ".jobs') / current_setting('block_size')::bigint");
    }

    /**
     * No vacuum gives the empty end of the jobs table back: that needs the table's exclusive lock,
     * which claims, heartbeats and outcomes keep out of reach under load (a vacuum retries it for up
     * to 5 s), and new jobs would need the pages again at once (V013). The maintainer's statement
     * keeps to it even where the table's setting was lost; a vacuum without either does truncate.
     */
    @Test
    void vacuumsLeaveTheEmptyEndOfTheJobsTableInPlace() throws Exception {
        execute("ALTER TABLE {s}.jobs SET (autovacuum_enabled = false)");
        leaveDeadRowsEnoughForAVacuum();
        long pages = pages();

        assertThat(maintainer.vacuumIfDue()).isTrue();
        assertThat(pages()).as("after the maintainer's vacuum").isEqualTo(pages);
        execute("VACUUM {s}.jobs");
        assertThat(pages()).as("after a plain VACUUM, which follows the table's setting as autovacuum does")
                .isEqualTo(pages);

        execute("ALTER TABLE {s}.jobs RESET (vacuum_truncate)");
        leaveDeadRowsEnoughForAVacuum();
        org.awaitility.Awaitility.await("the maintainer's next vacuum").atMost(NEXT_VACUUM_ROUND)
                .until(maintainer::vacuumIfDue);
        assertThat(pages()).as("after the maintainer's vacuum, the table's setting lost").isEqualTo(pages);
        execute("VACUUM {s}.jobs");
        assertThat(pages()).as("a plain VACUUM without the setting truncates").isLessThan(pages);
    }

    /** A role that may not vacuum the table gets the server's warning once; then autovacuum alone keeps it. */
    @Test
    void aRoleThatMayNotVacuumTheTableLeavesItToAutovacuum() throws Exception {
        execute("ALTER TABLE {s}.jobs SET (autovacuum_enabled = false)");
        String role = schema + "_no_vacuum";
        execute("CREATE ROLE " + role);
        closeAfter(() -> execute("DROP OWNED BY " + role + "; DROP ROLE " + role));
        execute("GRANT USAGE ON SCHEMA {s} TO " + role);
        execute("GRANT SELECT ON {s}.jobs TO " + role);
        var pool = closeAfter(db.pool(2));
        Maintainer limited = new Maintainer(new Database(HookedDataSource.withSessionSetting(pool, "SET ROLE " + role),
                new SchemaName(schema), PayloadCodec.defaultMapper()),
                Duration.ofSeconds(1), Duration.ofDays(7), Duration.ofDays(30));
        leaveDeadRowsEnoughForAVacuum();
        long vacuums = vacuumCount();

        assertThat(limited.vacuumIfDue()).isFalse();
        assertThat(limited.vacuumIfDue()).isFalse();
        assertThat(vacuumCount()).isEqualTo(vacuums);
        assertThat(deadRows()).isGreaterThanOrEqualTo(Maintainer.VACUUM_DEAD_ROWS);
    }

    @Test
    void aScheduledJobBecomesReadyOnceDueAndNotBefore() throws Exception {
        long id = docket.enqueue("later", new Task(1), inAnHour());
        long other = docket.enqueue("later", new Task(2), inAnHour().toBuilder().queue("other").build());
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

        assertThat(maintainer.promoteDue()).isZero();
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

        execute("UPDATE {s}.jobs SET run_at = now() - interval '1 s'");
        try (Connection listener = dataSource().getConnection(); Statement st = listener.createStatement()) {
            st.execute("LISTEN \"docket." + schema + "\"");

            assertThat(maintainer.promoteDue()).isEqualTo(2);

            Set<String> woken = new HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (woken.size() < 2 && System.nanoTime() < deadline) {
                PGNotification[] batch = listener.unwrap(PGConnection.class).getNotifications(500);
                for (PGNotification n : batch == null ? new PGNotification[0] : batch) {
                    woken.add(n.getParameter());
                }
            }
            assertThat(woken).as("queues woken by the promotion").containsExactlyInAnyOrder("default", "other");
            st.execute("UNLISTEN *");
        }
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(docket.job(other).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(maintainer.promoteDue()).isZero();
    }

    @Test
    void allDueJobsArePromotedInOneCallPageByPage() throws Exception {
        enqueue("due", 2_500, inAnHour());
        List<Long> notDue = enqueue("not-due", 3, inAnHour());
        execute("UPDATE {s}.jobs SET run_at = now() - interval '1 s' WHERE kind = 'due'");

        assertThat(maintainer.promoteDue()).isEqualTo(2_500);

        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'due' AND state = 'ready'")).isEqualTo(2_500);
        assertThat(notDue).allSatisfy(id -> assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.SCHEDULED));
    }

    // ---------------------------------------------------------------- rescue

    @Test
    void expiredLeasesAreRescuedPageByPageAndValidLeasesAreLeftAlone() throws Exception {
        // Interleaved ids: live leases and exhausted jobs sit between the lost ones, across pages.
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 2_520; i++) {
            String kind = i % 250 == 7 ? "alive" : i % 500 == 11 ? "exhausted" : "lost";
            jobs.add(NewJob.of(kind, new Task(i), JobOptions.builder().maxAttempts(3).build()));
        }
        List<Long> ids = docket.enqueueAll(jobs);
        execute("""
                UPDATE {s}.jobs
                   SET state = 'running', attempted_at = now(),
                       attempt = CASE kind WHEN 'exhausted' THEN 3 ELSE 1 END,
                       locked_by = CASE kind WHEN 'alive' THEN 'live-worker' ELSE 'crashed-worker' END,
                       lease_until = CASE kind WHEN 'alive' THEN now() + interval '1 hour' ELSE now() - interval '1 s' END""");
        long lost = queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'lost'");
        long exhausted = queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'exhausted'");
        long alive = queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'alive'");
        assertThat(lost).isGreaterThanOrEqualTo(2_500);
        assertThat(exhausted).isPositive();
        assertThat(alive).isPositive();

        assertThat(maintainer.rescueExpired()).isEqualTo((int) (lost + exhausted));

        assertThat(queryLong("""
                SELECT count(*) FROM {s}.jobs
                 WHERE kind = 'lost' AND state = 'ready' AND attempt = 1 AND locked_by IS NULL AND lease_until IS NULL
                   AND jsonb_array_length(errors) = 1
                   AND errors -> 0 ->> 'worker' = 'crashed-worker'
                   AND (errors -> 0 ->> 'attempt')::int = 1
                   AND errors -> 0 ->> 'error' LIKE '%crashed-worker%lost its lease%'""")).isEqualTo(lost);
        assertThat(queryLong("""
                SELECT count(*) FROM {s}.jobs
                 WHERE kind = 'alive' AND state = 'running' AND locked_by = 'live-worker'
                   AND lease_until > now() AND errors = '[]'""")).isEqualTo(alive);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'exhausted'")).isZero();
        assertThat(queryLong("""
                SELECT count(*) FROM {s}.dead_jobs
                 WHERE kind = 'exhausted' AND reason LIKE '%lost its lease%'
                   AND errors -> -1 ->> 'error' LIKE '%crashed-worker%lost its lease%'""")).isEqualTo(exhausted);

        JobInfo rescued = docket.job(ids.getFirst()).orElseThrow();
        assertThat(rescued.kind()).isEqualTo("lost");
        assertThat(rescued.state()).isEqualTo(JobState.READY);
        assertThat(rescued.errors()).singleElement().satisfies(e -> {
            assertThat(e.worker()).isEqualTo("crashed-worker");
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.message()).contains("crashed-worker").contains("lost its lease");
            assertThat(e.at()).isNotNull();
        });
        JobInfo dead = docket.job(ids.get(11)).orElseThrow();
        assertThat(dead.kind()).isEqualTo("exhausted");
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.deadReason()).contains("lost its lease");
        assertThat(dead.errors()).extracting(JobError::worker).containsExactly("crashed-worker");

        assertThat(maintainer.rescueExpired()).as("second round").isZero();
    }

    @Test
    void rescueMakesProgressPastRowsItCannotLock() throws Exception {
        List<Long> ids = enqueue("lost", 1_500, JobOptions.defaults());
        execute("""
                UPDATE {s}.jobs SET state = 'running', attempt = 1, locked_by = 'crashed-worker',
                                    attempted_at = now(), lease_until = now() - interval '1 s'""");
        List<Long> locked = ids.subList(0, 1_000);
        try (Connection holder = dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (PreparedStatement ps = holder.prepareStatement(
                    "SELECT id FROM " + schema + ".jobs WHERE id = ANY (?) FOR UPDATE")) {
                ps.setArray(1, holder.createArrayOf("bigint", locked.toArray()));
                ps.executeQuery().close();
            }

            assertThat(maintainer.rescueExpired()).isEqualTo(500);

            assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'ready'")).isEqualTo(500);
            holder.rollback();
        }
        assertThat(maintainer.rescueExpired()).isEqualTo(1_000);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'ready'")).isEqualTo(1_500);
    }

    // ---------------------------------------------------------------- housekeeping

    @Test
    void housekeepingCreatesTheComingDaysPartitionsInUtcDays() throws Exception {
        for (int day = 0; day <= 3; day++) {
            execute("DROP TABLE {s}.job_history_p" + utcDay(day));
        }
        assertThat(partitions()).containsExactly("job_history_default");

        maintainer.housekeeping();

        assertThat(partitions()).containsExactlyInAnyOrder("job_history_default", "job_history_p" + utcDay(0),
                "job_history_p" + utcDay(1), "job_history_p" + utcDay(2), "job_history_p" + utcDay(3));
        insertHistoryRow(1, "now()");
        assertThat(queryString("SELECT tableoid::regclass::text FROM {s}.job_history WHERE id = 1"))
                .as("a job finished now lands in today's (UTC) partition")
                .isEqualTo(schema + ".job_history_p" + utcDay(0));

        maintainer.housekeeping();
        assertThat(partitions()).hasSize(5);
    }

    @Test
    void housekeepingDropsHistoryPartitionsOlderThanTheRetention() throws Exception {
        for (int day : new int[] {-30, -8, -7, -3}) {
            LocalDate date = LocalDate.parse(utcDayIso(day));
            String part = "job_history_p" + utcDay(day);
            execute("CREATE TABLE {s}." + part + " PARTITION OF {s}.job_history FOR VALUES FROM ('" + date
                    + " 00:00:00+00') TO ('" + date.plusDays(1) + " 00:00:00+00')");
            insertHistoryRow(1000 + day, "'" + date + " 12:00:00+00'");
            assertThat(queryString("SELECT tableoid::regclass::text FROM {s}.job_history WHERE id = " + (1000 + day)))
                    .isEqualTo(schema + "." + part);
        }

        maintainer.housekeeping();

        // Retention 7 days: a partition goes once its whole day is older than now() - 7 days.
        assertThat(partitions()).doesNotContain("job_history_p" + utcDay(-30), "job_history_p" + utcDay(-8))
                .contains("job_history_p" + utcDay(-7), "job_history_p" + utcDay(-3), "job_history_p" + utcDay(0),
                        "job_history_default");
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id IN (970, 992)")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id IN (993, 997)")).isEqualTo(2);
    }

    @Test
    void housekeepingDeletesDeadJobsOlderThanTheDeadJobRetention() throws Exception {
        // Two that died the real way (rescued at max attempts), then aged by 31 days.
        List<Long> aged = enqueue("exhausted", 2, JobOptions.builder().maxAttempts(1).build());
        execute("""
                UPDATE {s}.jobs SET state = 'running', attempt = 1, locked_by = 'crashed-worker',
                                    attempted_at = now(), lease_until = now() - interval '1 s'""");
        assertThat(maintainer.rescueExpired()).isEqualTo(2);
        execute("UPDATE {s}.dead_jobs SET died_at = died_at - interval '31 days'");
        // A bulk of old ones (more than one page) and some recent ones.
        execute("""
                INSERT INTO {s}.dead_jobs (id, queue, kind, payload, payload_version, priority, run_at, attempt,
                                           max_attempts, metadata, errors, created_at, died_at, reason)
                SELECT 100000 + g, 'default', CASE WHEN g <= 2500 THEN 'old' ELSE 'recent' END, '{}', 1, 0,
                       now(), 1, 1, '{}', '[]', now(),
                       now() - CASE WHEN g <= 2500 THEN interval '31 days' ELSE interval '29 days' END, 'test'
                  FROM generate_series(1, 2503) g""");

        maintainer.housekeeping();

        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE kind IN ('old', 'exhausted')")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE kind = 'recent'")).isEqualTo(3);
        assertThat(docket.job(aged.getFirst())).isEmpty();
    }

    @Test
    void runOnceDoesPromotionRescueAndHousekeeping() throws Exception {
        long due = docket.enqueue("due", new Task(1), inAnHour());
        long lost = docket.enqueue("lost", new Task(2));
        execute("UPDATE {s}.jobs SET run_at = now() - interval '1 s' WHERE id = " + due);
        execute("UPDATE {s}.jobs SET state = 'running', attempt = 1, locked_by = 'crashed-worker', "
                + "lease_until = now() - interval '1 s' WHERE id = " + lost);
        execute("DROP TABLE {s}.job_history_p" + utcDay(3));

        maintainer.runOnce();

        assertThat(docket.job(due).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(docket.job(lost).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(partitions()).contains("job_history_p" + utcDay(3));
    }

    // ---------------------------------------------------------------- helpers

    /** The UTC date {@code offset} days from the database's today, as YYYYMMDD. */
    private String utcDay(int offset) {
        return queryString("SELECT to_char((now() AT TIME ZONE 'UTC')::date + " + offset + ", 'YYYYMMDD')");
    }

    private String utcDayIso(int offset) {
        return queryString("SELECT to_char((now() AT TIME ZONE 'UTC')::date + " + offset + ", 'YYYY-MM-DD')");
    }

    private List<String> partitions() throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT c.relname FROM pg_inherits i
                  JOIN pg_class c ON c.oid = i.inhrelid
                  JOIN pg_class p ON p.oid = i.inhparent
                  JOIN pg_namespace n ON n.oid = p.relnamespace
                 WHERE n.nspname = ? AND p.relname = 'job_history'
                 ORDER BY c.relname""")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    private void insertHistoryRow(long id, String finishedAt) {
        execute("""
                INSERT INTO {s}.job_history (id, queue, kind, payload, payload_version, priority, state, run_at,
                                             attempt, max_attempts, metadata, errors, created_at, finished_at)
                VALUES (%d, 'default', 'old', '{}', 1, 0, 'completed', now(), 1, 1, '{}', '[]', now(), %s)"""
                .formatted(id, finishedAt));
    }

    private String queryString(String sql) {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql.replace("{s}", schema))) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
