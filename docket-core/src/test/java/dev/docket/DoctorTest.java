package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.DoctorReport.Finding;
import dev.docket.DoctorReport.Severity;
import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import dev.docket.testing.HookedDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Doctor names each problem created here for real, with its cause, evidence and fix. */
class DoctorTest extends DocketTest {

    record Task(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    private Worker serve(Docket docket, String queue, String kind) {
        return worker(docket, w -> w.queue(queue, 2).maintenanceInterval(Duration.ofMillis(100))
                .handler(kind, Task.class, (t, ctx) -> { }));
    }

    private static Finding only(DoctorReport report, String check, Severity severity) {
        List<Finding> found = report.findings(check).stream().filter(f -> f.severity() == severity).toList();
        assertThat(found).as("%s findings of %s in %s", severity, check, report.findings()).hasSize(1);
        return found.getFirst();
    }

    @Test
    void aHealthyQueueIsAllOkAndExitsZero() {
        Docket docket = docket();
        Worker worker = serve(docket, "default", "send");
        long id = docket.enqueue("send", new Task(1));
        awaitState(docket, id, JobState.COMPLETED, WAIT);
        Awaitility.await().atMost(WAIT).until(worker::isLeader);

        DoctorReport report = docket.admin().doctor();

        assertThat(report.problems()).as("%s", report.findings()).isEmpty();
        assertThat(report.status()).isEqualTo(Severity.OK);
        assertThat(report.exitCode()).isZero();
        assertThat(report.findings()).extracting(Finding::check).contains("vacuum_debt", "xmin_horizon",
                "settings_drift", "dead_letter_growth", "unserved_kinds", "history_partitions", "maintenance", "workers");
        assertThat(only(report, "workers", Severity.OK).evidence()).contains(worker.workerId());
        assertThat(report.workers()).extracting(WorkerInfo::id).containsExactly(worker.workerId());
        assertThat(report.workers().getFirst().version()).isEqualTo("development");
    }

    /** A session idle in transaction holding an xid pins the horizon: doctor names its pid, application and the statement that ends it. */
    @Test
    void namesTheSessionIdleInTransactionThatPinsTheHorizon() throws Exception {
        Docket docket = docket();
        try (Connection stuck = dataSource().getConnection(); Statement st = stuck.createStatement()) {
            st.execute("SET application_name = 'stuck-report-job'");
            stuck.setAutoCommit(false);
            int pid;
            try (ResultSet rs = st.executeQuery("SELECT pg_backend_pid(), txid_current()")) {
                rs.next();
                pid = rs.getInt(1);
            }
            try {
                DoctorReport report = docket.admin().doctor(DoctorOptions.defaults().withLongTransaction(Duration.ZERO));

                Finding f = report.findings("xmin_horizon").stream().filter(x -> x.subject().equals("pid " + pid))
                        .findFirst().orElseThrow(() -> new AssertionError("no finding for pid " + pid + ": "
                                + report.findings("xmin_horizon")));
                assertThat(f.severity()).isEqualTo(Severity.PROBLEM);
                assertThat(f.cause()).contains("idle in transaction");
                assertThat(f.evidence()).contains("pid " + pid).contains("application 'stuck-report-job'")
                        .contains("state idle in transaction").contains("transaction open");
                assertThat(f.fix()).contains("SELECT pg_terminate_backend(" + pid + ");");
                assertThat(report.exitCode()).isEqualTo(2);
            } finally {
                stuck.rollback();
            }
        }
        DoctorReport after = docket.admin().doctor();
        assertThat(after.findings("xmin_horizon")).noneMatch(f -> f.subject().startsWith("pid ") && f.evidence()
                .contains("stuck-report-job"));
    }

    @Test
    void namesAResetAutovacuumSettingAndTheStatementThatRestoresIt() {
        Docket docket = docket();
        execute("ALTER TABLE {s}.jobs RESET (autovacuum_vacuum_scale_factor)");

        Finding f = only(docket.admin().doctor(), "settings_drift", Severity.WARNING);

        assertThat(f.subject()).isEqualTo(schema + ".jobs");
        assertThat(f.evidence()).contains("autovacuum_vacuum_scale_factor is the server default, the migrations set 0.02")
                .doesNotContain("fillfactor");
        assertThat(f.fix()).contains("ALTER TABLE " + schema + ".jobs SET (fillfactor = 80, "
                + "autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02, "
                + "autovacuum_vacuum_cost_delay = 0, vacuum_truncate = false);");

        execute("ALTER TABLE {s}.jobs SET (autovacuum_vacuum_scale_factor = 0.02, vacuum_truncate = off)");
        assertThat(docket.admin().doctor().findings("settings_drift")).singleElement()
                .satisfies(ok -> assertThat(ok.severity()).as("off is false").isEqualTo(Severity.OK));
        execute("ALTER TABLE {s}.jobs RESET (vacuum_truncate)");
        assertThat(only(docket.admin().doctor(), "settings_drift", Severity.WARNING).evidence())
                .contains("vacuum_truncate is the server default, the migrations set false");

        execute("ALTER TABLE {s}.jobs SET (vacuum_truncate = false, autovacuum_enabled = false)");
        Finding disabled = only(docket.admin().doctor(), "settings_drift", Severity.PROBLEM);
        assertThat(disabled.evidence()).contains("autovacuum_enabled is false");
        assertThat(disabled.fix()).contains("RESET (autovacuum_enabled)");
    }

    @Test
    void namesWaitingJobsThatNoLiveWorkerServes() {
        Docket docket = docket();
        serve(docket, "default", "send");
        docket.enqueue("sned", new Task(1));
        docket.enqueue("render", new Task(2), JobOptions.builder().queue("reports").build());
        docket.enqueue("render", new Task(3), JobOptions.builder().queue("reports").delay(Duration.ofHours(1)).build());

        DoctorReport report = docket.admin().doctor();

        List<Finding> unserved = report.findings("unserved_kinds");
        assertThat(unserved).filteredOn(f -> f.subject().equals("kind sned on queue default")).singleElement()
                .satisfies(f -> {
                    assertThat(f.severity()).isEqualTo(Severity.PROBLEM);
                    assertThat(f.cause()).contains("none has a handler for the kind");
                });
        assertThat(unserved).filteredOn(f -> f.subject().equals("kind render on queue reports")).singleElement()
                .satisfies(f -> {
                    assertThat(f.severity()).isEqualTo(Severity.PROBLEM);
                    assertThat(f.cause()).isEqualTo("no live worker serves the queue");
                    assertThat(f.evidence()).contains("1 ready and 1 scheduled");
                    assertThat(f.fix()).contains("--queue reports");
                });
        assertThat(unserved).noneMatch(f -> f.subject().contains("kind send "));
    }

    /** A worker that cannot reach the database stops heartbeating; doctor names it and the job it still holds. */
    @Test
    void namesAWorkerWhoseHeartbeatsStoppedWithTheJobsItHolds() throws Exception {
        AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));
        Docket gated = docket(b -> Docket.builder(HookedDataSource.gated(dataSource(), gate)).schema(schema));
        Docket observer = docket();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Worker worker = gated.worker().queue("default", 1).lease(Duration.ofSeconds(1)).maintenance(false)
                .handler("hold", Task.class, (t, ctx) -> {
                    started.countDown();
                    release.await();
                }).start();
        try {
            observer.enqueue("hold", new Task(1));
            assertThat(started.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            gate.set(new CountDownLatch(1));

            Finding f = Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(100))
                    .until(() -> observer.admin().doctor().findings("worker_stopped"), l -> !l.isEmpty()).getFirst();

            assertThat(f.subject()).isEqualTo("worker " + worker.workerId());
            assertThat(f.severity()).isEqualTo(Severity.PROBLEM);
            assertThat(f.evidence()).contains("1 job still locked by it").contains("pid " + ProcessHandle.current().pid());
            assertThat(f.fix()).contains("leases expire");
        } finally {
            gate.get().countDown();
            release.countDown();
            worker.close();
        }
    }

    @Test
    void namesLagOverItsSloAndAPausedQueueWithABacklog() {
        Docket docket = docket();
        DocketAdmin admin = docket.admin();
        admin.setQueueLagSlo("default", Duration.ofSeconds(30));
        admin.pauseQueue("default");
        serve(docket, "default", "send");
        docket.enqueue("send", new Task(1));
        execute("UPDATE {s}.jobs SET run_at = now() - interval '5 minutes'");

        DoctorReport report = admin.doctor();

        Finding lag = only(report, "queue_lag", Severity.PROBLEM);
        assertThat(lag.subject()).isEqualTo("queue default");
        assertThat(lag.evidence()).contains("lag 5.0 min").contains("SLO 30.0 s");
        assertThat(lag.fix()).contains("docket queue resume default");
        assertThat(only(report, "paused_backlog", Severity.WARNING).evidence()).contains("1 ready");
    }

    /** A job that was due 10 s before a worker came to claim it has a pickup of 10 s. */
    @Test
    void namesPickupP99OverItsSlo() {
        Docket docket = docket();
        docket.admin().setKindPickupSlo("send", Duration.ofSeconds(1));
        long id = docket.enqueue("send", new Task(1));
        execute("UPDATE {s}.jobs SET run_at = now() - interval '10 seconds'");
        serve(docket, "default", "send");
        awaitState(docket, id, JobState.COMPLETED, WAIT);

        Finding f = only(docket.admin().doctor(), "pickup_p99", Severity.PROBLEM);

        assertThat(f.subject()).isEqualTo("kind send");
        assertThat(f.evidence()).startsWith("pickup p99 1").contains(" s over 1 first attempt in the last 5 minutes; SLO 1.0 s");
    }

    @Test
    void namesDeadLetterGrowth() {
        Docket docket = docket();
        worker(docket, w -> w.queue("default", 1).handler("charge", Task.class, (t, ctx) -> {
            throw new PermanentJobFailure("card declined");
        }));
        awaitState(docket, docket.enqueue("charge", new Task(1)), JobState.DEAD, WAIT);

        Finding f = only(docket.admin().doctor(), "dead_letter_growth", Severity.WARNING);

        assertThat(f.subject()).isEqualTo("kind charge on queue default");
        assertThat(f.evidence()).startsWith("1 died in the last 24 h");
    }

    /**
     * Dead rows that no vacuum removes (autovacuum off for the table, no maintenance leader) are vacuum
     * debt: 20,000 a warning (a problem from 100,000 when they outnumber the live rows).
     */
    @Test
    @FreshSchema
    void namesVacuumDebtOnTheJobsTable() throws Exception {
        Docket docket = docket();
        execute("ALTER TABLE {s}.jobs SET (autovacuum_enabled = false)");
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO " + schema + ".jobs (queue, kind, payload, state, max_attempts) "
                    + "SELECT 'default', 'bulk', '{}', 'ready', 1 FROM generate_series(1, 20000)");
            st.execute("DELETE FROM " + schema + ".jobs");
            // A backend reports its table statistics when it ends a transaction (at most twice a second
            // before PostgreSQL 15, which also reports when idle): each poll ends one on this connection.
            Finding f = Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        st.execute("SELECT 1");
                        return docket.admin().doctor().findings("vacuum_debt").getFirst();
                    }, x -> x.severity() != Severity.OK);

            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.evidence()).contains("20,000 dead and 0 live rows")
                    .containsPattern("the claim index is [0-9,]+ pages for 0 ready rows");
            assertThat(f.fix()).startsWith("VACUUM (VERBOSE) " + schema + ".jobs;");
        }
    }

    @Test
    void namesMissingHistoryPartitionsAndAMissingMaintenanceLeader() {
        Docket docket = docket();
        long today = queryLong("SELECT to_char((now() AT TIME ZONE 'UTC')::date, 'YYYYMMDD')::bigint");
        long tomorrow = queryLong("SELECT to_char((now() AT TIME ZONE 'UTC')::date + 1, 'YYYYMMDD')::bigint");
        execute("DROP TABLE {s}.job_history_p" + tomorrow);
        assertThat(only(docket.admin().doctor(), "history_partitions", Severity.WARNING).fix())
                .isEqualTo("SELECT " + schema + ".create_history_partitions(3);");
        execute("DROP TABLE {s}.job_history_p" + today);
        assertThat(only(docket.admin().doctor(), "history_partitions", Severity.PROBLEM).cause())
                .contains("today's history partition is missing");

        docket.enqueue("send", new Task(1), JobOptions.builder().delay(Duration.ofHours(1)).build());
        execute("UPDATE {s}.jobs SET run_at = now() - interval '2 minutes'");
        Finding leader = only(docket.admin().doctor(), "maintenance", Severity.PROBLEM);
        assertThat(leader.cause()).startsWith("no maintenance leader");
        assertThat(leader.evidence()).contains("due 2.0 min ago");
    }

    @Test
    void optionsRefuseBadThresholds() {
        assertThatIllegalArgumentException().isThrownBy(() -> DoctorOptions.defaults().withLongTransaction(Duration.ofSeconds(-1)))
                .withMessageContaining("longTransaction must be zero or more");
        assertThatIllegalArgumentException().isThrownBy(() -> DoctorOptions.defaults().withXidAge(0))
                .withMessageContaining("xidAge must be at least 1");
    }
}
