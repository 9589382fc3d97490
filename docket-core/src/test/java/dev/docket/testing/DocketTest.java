package dev.docket.testing;

import dev.docket.Docket;
import dev.docket.JobInfo;
import dev.docket.JobState;
import dev.docket.Worker;
import dev.docket.test.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

/**
 * Base for tests on real PostgreSQL: each test gets a migrated schema of its own, empty, so tests never
 * see each other's jobs and may run in parallel. The schema was usually an earlier test's, given back
 * as the migrations left it ({@link MigratedSchemas}); a test whose schema must not exist yet says
 * {@link FreshSchema}.
 */
public abstract class DocketTest {

    protected final TestPostgres db = TestPostgres.get();
    protected String schema;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void takeSchema(TestInfo test) {
        boolean fresh = test.getTestMethod().map(m -> m.isAnnotationPresent(FreshSchema.class)).orElse(false)
                || test.getTestClass().map(c -> c.isAnnotationPresent(FreshSchema.class)).orElse(false);
        schema = fresh ? MigratedSchemas.newName() : MigratedSchemas.get().take();
    }

    @AfterEach
    void giveSchemaBack() throws Exception {
        try {
            for (AutoCloseable c : closeables.reversed()) {
                c.close();
            }
        } catch (Exception | Error e) {
            // What did not close may still be writing to the schema.
            db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            throw e;
        }
        MigratedSchemas.get().giveBack(schema);
    }

    protected DataSource dataSource() {
        return db.dataSource();
    }

    /** A migrated Docket on this test's schema, closed after the test. */
    protected Docket docket() {
        return docket(b -> b);
    }

    /** A migrated Docket on this test's schema with extra settings, closed after the test. */
    protected Docket docket(UnaryOperator<Docket.Builder> settings) {
        Docket docket = settings.apply(Docket.builder(dataSource()).schema(schema)).build();
        docket.migrate();
        return closeAfter(docket);
    }

    /**
     * Starts a worker on {@code docket} with what {@code setup} declares (queues, handlers, intervals),
     * closed after the test (before its Docket). For example
     * {@code worker(docket, w -> w.queue("default", 4).handler("k", Task.class, (t, ctx) -> { }))}.
     */
    protected Worker worker(Docket docket, UnaryOperator<Worker.Builder> setup) {
        return closeAfter(setup.apply(docket.worker()).start());
    }

    protected <T extends AutoCloseable> T closeAfter(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    /** Waits (up to {@code timeout}) until the job is in {@code state}, and returns it. */
    protected JobInfo awaitState(Docket docket, long id, JobState state, Duration timeout) {
        return Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(20))
                .until(() -> docket.job(id).orElseThrow(), job -> job.state() == state);
    }

    /** Runs a query on the test schema ({@code {s}} stands for it) and returns the first column of the first row. */
    protected long queryLong(String sql, Object... params) {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(sql.replace("{s}", schema))) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Inserts a dead job of {@code kind} on queue {@code default} with one failed attempt whose error
     * is {@code error} followed by a stack line, as a worker would have left it; {@code payload} is JSON.
     * The texts go into SQL literals: no single quotes in them.
     */
    protected void insertDeadJob(long id, String kind, String payload, String error) {
        execute("""
                INSERT INTO {s}.dead_jobs (id, queue, kind, payload, payload_version, priority, run_at, attempt,
                                           max_attempts, metadata, errors, created_at, attempted_at, reason)
                VALUES (%d, 'default', '%s', '%s', 1, 0, now(), 1, 1, '{}',
                        jsonb_build_array(jsonb_build_object('attempt', 1, 'at', now(), 'worker', 'w',
                            'error', '%s' || chr(10) || chr(9) || 'at com.acme.Billing.charge(Billing.java:42)')),
                        now(), now(), 'permanent failure')""".formatted(id, kind, payload, error));
    }

    /** Runs a statement on the test schema ({@code {s}} stands for it). */
    protected void execute(String sql) {
        db.execute(sql.replace("{s}", schema));
    }
}
