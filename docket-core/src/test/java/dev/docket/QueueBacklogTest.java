package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.docket.internal.db.Database;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.DocketTest;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A queue's backlog, as autoscalers read it: the SQL function {@code queue_backlog(queue)} (KEDA's
 * PostgreSQL scaler runs a query), the gauge {@code docket.queue.backlog} (its Prometheus scaler) and
 * {@link QueueStats#backlog()} give the same figure for real jobs in every state; the function
 * refuses malformed and hostile input, and a role granted EXECUTE on it alone can call it without
 * being able to read the jobs table.
 */
class QueueBacklogTest extends DocketTest {

    record Task(int n) {
    }

    private static final String INVALID_QUEUE = "22023";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private long backlog(String queue) {
        return queryLong("SELECT {s}.queue_backlog(?)", queue);
    }

    private double gauge(String queue) {
        Gauge g = registry.find("docket.queue.backlog").tags("queue", queue).gauge();
        return g == null ? Double.NaN : g.value();
    }

    /**
     * On queue {@code reports}: 3 ready, 2 scheduled but already due (no leader made them ready), 2
     * scheduled for later (one the head of a sequence), 1 running, 1 waiting behind its sequence's head;
     * on {@code other}: 4 ready.
     */
    @Test
    void theFunctionTheGaugeAndTheStatsCountReadyAndOverdueJobs() throws SQLException {
        Docket docket = docket(b -> b.meterRegistry(registry).metricsInterval(Duration.ofMillis(100)));
        Database store = new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
        JobOptions reports = JobOptions.builder().queue("reports").build();
        docket.enqueue("render", new Task(0), reports);
        assertThat(store.claims().claim("reports", 1, Duration.ofMinutes(1), Map.of(), "w")).hasSize(1);
        for (int i = 1; i <= 3; i++) {
            docket.enqueue("render", new Task(i), reports);
        }
        JobOptions later = JobOptions.builder().queue("reports").delay(Duration.ofHours(1)).build();
        long overdue1 = docket.enqueue("render", new Task(10), later);
        long overdue2 = docket.enqueue("render", new Task(11), later);
        docket.enqueue("render", new Task(12), later);
        execute("UPDATE {s}.jobs SET run_at = now() - interval '1 minute' WHERE id IN (" + overdue1 + ", " + overdue2 + ")");
        JobOptions keyed = JobOptions.builder().queue("reports").sequenceKey("account-1").build();
        docket.enqueue("render", new Task(30), keyed);
        docket.enqueue("render", new Task(31), keyed);
        execute("UPDATE {s}.jobs SET state = 'scheduled', run_at = now() + interval '1 hour' "
                + "WHERE sequence_key IS NOT NULL AND state = 'ready'");
        for (int i = 0; i < 4; i++) {
            docket.enqueue("export", new Task(i), JobOptions.builder().queue("other").build());
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'waiting'")).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE queue = 'reports' AND state = 'running'")).isEqualTo(1);

        assertThat(backlog("reports")).isEqualTo(5);
        assertThat(backlog("other")).isEqualTo(4);
        assertThat(backlog("nobody-uses-this")).isZero();
        assertThat(docket.admin().stats().stream().filter(s -> s.queue().equals("reports"))
                .mapToLong(QueueStats::backlog).sum()).isEqualTo(5);
        assertThat(docket.admin().stats().stream().filter(s -> s.queue().equals("reports"))
                .mapToLong(QueueStats::overdue).sum()).isEqualTo(2);
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(gauge("reports")).isEqualTo(5);
            assertThat(gauge("other")).isEqualTo(4);
        });

        // Claimed jobs leave the backlog; the gauge follows, and reads 0 once the queue is empty.
        assertThat(store.claims().claim("other", 4, Duration.ofMinutes(1), Map.of(), "w")).hasSize(4);
        assertThat(backlog("other")).isZero();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> gauge("other") == 0);
    }

    @Test
    void theFunctionRefusesMalformedAndHostileQueueNames() {
        docket();
        for (String bad : new String[] {null, "", " ", "x".repeat(129), "default'; DROP TABLE jobs; --", "a b",
                "tab\there", "new\nline", "ünïcode", "x".repeat(1_000_000)}) {
            assertThatThrownBy(() -> call(bad)).as("queue %s", bad == null ? null : bad.substring(0, Math.min(40, bad.length())))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo(INVALID_QUEUE);
                        assertThat(e.getMessage()).contains(
                                "docket.queue_backlog: queue must be 1 to 128 characters of A-Z a-z 0-9 _ . : -");
                    });
        }
        assertThat(backlog("x".repeat(128))).isZero();
        assertThat(backlog("a-b_c.d:e")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).as("the table is still there").isZero();
    }

    private long call(String queue) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT " + schema + ".queue_backlog(?)")) {
            ps.setString(1, queue);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * What docs/autoscaling.md tells operators to grant: USAGE on the schema and EXECUTE on the function,
     * nothing on the tables. That role reads the backlog and cannot read a payload; a role without the
     * grant cannot call the function (EXECUTE is revoked from PUBLIC).
     */
    @Test
    void aRoleGrantedExecuteAloneReadsTheBacklogButNoPayload() throws SQLException {
        Docket docket = docket();
        docket.enqueue("render", new Task(1), JobOptions.builder().queue("reports").build());
        assumeTrue(queryLong("SELECT count(*) FROM pg_roles WHERE rolname = current_user AND (rolsuper OR rolcreaterole)") == 1,
                "the test database's role may not create roles");
        String scaler = "keda_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String stranger = scaler + "_x";
        execute("CREATE ROLE " + scaler + " LOGIN");
        execute("CREATE ROLE " + stranger + " LOGIN");
        try {
            execute("GRANT USAGE ON SCHEMA {s} TO " + scaler + ", " + stranger);
            execute("GRANT EXECUTE ON FUNCTION {s}.queue_backlog(text) TO " + scaler);
            try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
                c.setAutoCommit(false);
                st.execute("SET LOCAL ROLE " + scaler);
                try (ResultSet rs = st.executeQuery("SELECT " + schema + ".queue_backlog('reports')")) {
                    rs.next();
                    assertThat(rs.getLong(1)).isEqualTo(1);
                }
                assertThatThrownBy(() -> st.executeQuery("SELECT payload FROM " + schema + ".jobs"))
                        .isInstanceOf(SQLException.class).hasMessageContaining("permission denied");
                c.rollback();
                st.execute("SET LOCAL ROLE " + stranger);
                assertThatThrownBy(() -> st.executeQuery("SELECT " + schema + ".queue_backlog('reports')"))
                        .isInstanceOf(SQLException.class).hasMessageContaining("permission denied");
                c.rollback();
                c.setAutoCommit(true);
            }
        } finally {
            execute("DROP OWNED BY " + scaler + ", " + stranger);
            execute("DROP ROLE " + scaler);
            execute("DROP ROLE " + stranger);
        }
    }
}
