package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static dev.docket.server.cli.CliTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.Slo;
import dev.docket.Worker;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code docket doctor}, {@code docket job explain}, {@code docket job signal} and {@code docket slo}, in-process
 * against the test database.
 */
class OperationsCliTest extends DocketTest {

    record Task(int n) {
    }

    private final Map<String, String> env = new HashMap<>();

    private Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", db.jdbcUrl(), "--schema", schema));
        return CliRunner.run(env, all.toArray(String[]::new));
    }

    private Worker healthyWorker(Docket docket) {
        Worker worker = worker(docket, w -> w.queue("default", 2).maintenanceInterval(Duration.ofMillis(100))
                .lease(Duration.ofSeconds(3)).handler("send", Task.class, (t, ctx) -> { }));
        Awaitility.await().atMost(Duration.ofSeconds(15)).until(worker::isLeader);
        // Past its first heartbeat (written before its listener connects), as a worker is a moment after start.
        Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> docket.admin().workers().getFirst().heartbeatAt()
                .isAfter(docket.admin().workers().getFirst().startedAt().plusSeconds(1)));
        return worker;
    }

    @Test
    void doctorOnAHealthyDatabaseExitsZero() {
        Docket docket = docket();
        Worker worker = healthyWorker(docket);

        Run r = cli("doctor");

        assertOk(r);
        assertThat(r.out()).startsWith("docket doctor: healthy (schema " + schema + ", ")
                .contains("vacuum_debt").contains("xmin_horizon").contains(worker.workerId())
                .endsWith("Exit status 0 (ok)." + System.lineSeparator());
    }

    @Test
    void doctorNamesEachProblemWithCauseEvidenceAndFixAndExitsTwo() throws Exception {
        Docket docket = docket();
        healthyWorker(docket);
        docket.enqueue("render", new Task(1), JobOptions.builder().queue("reports").build());
        execute("ALTER TABLE {s}.jobs RESET (fillfactor)");
        try (Connection stuck = dataSource().getConnection(); Statement st = stuck.createStatement()) {
            st.execute("SET application_name = 'nightly-export'");
            stuck.setAutoCommit(false);
            st.execute("SELECT txid_current()");
            try {
                Run r = cli("doctor", "--long-transaction", "0s");

                assertThat(r.exit()).as(r.err()).isEqualTo(2);
                assertThat(r.out()).contains("PROBLEM  unserved_kinds  kind render on queue reports")
                        .contains("PROBLEM  xmin_horizon  pid ").contains("application 'nightly-export'")
                        .contains("fix:      end it: SELECT pg_terminate_backend(")
                        .contains("WARNING  settings_drift  " + schema + ".jobs")
                        .contains("fillfactor is the server default, the migrations set 80")
                        .endsWith("Exit status 2 (problem)." + System.lineSeparator());

                JsonNode json = new ObjectMapper().readTree(cli("doctor", "--json").out());
                assertThat(json.get("status").asText()).isEqualTo("problem");
                assertThat(json.get("exitCode").asInt()).isEqualTo(2);
                assertThat(json.get("findings").get(0).get("severity").asText()).isEqualTo("problem");
            } finally {
                stuck.rollback();
            }
        }
    }

    @Test
    void doctorWithOnlyWarningsExitsOne() {
        Docket docket = docket();
        healthyWorker(docket);
        execute("ALTER TABLE {s}.jobs RESET (autovacuum_vacuum_cost_delay)");

        Run r = cli("doctor");

        assertThat(r.exit()).as(r.out()).isEqualTo(1);
        assertThat(r.out()).startsWith("docket doctor: 0 problems, 1 warning (");
    }

    /**
     * A database that refuses the connection (here PostgreSQL's own 53300 for a role over its connection
     * limit) or does not answer is exit status 3, not the warnings' 1, with the database's reason.
     */
    @Test
    void doctorThatCannotConnectExitsThreeWithTheReason() throws Exception {
        docket();
        String role = "refused_" + schema;
        execute("CREATE ROLE " + role + " LOGIN PASSWORD 'pw' CONNECTION LIMIT 0");
        try {
            String url = db.jdbcUrl().replaceAll("user=[^&]*", "user=" + role).replaceAll("password=[^&]*", "password=pw");
            Run refused = CliRunner.run(env, "doctor", "--database-url", url, "--schema", schema);
            assertFails(refused, 3, "too many connections for role");

            int closedPort;
            try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
                closedPort = s.getLocalPort();
            }
            Run unreachable = CliRunner.run(env, "doctor", "--database-url",
                    "jdbc:postgresql://127.0.0.1:" + closedPort + "/docket", "--schema", schema);
            assertFails(unreachable, 3, "refused");
        } finally {
            execute("DROP ROLE " + role);
        }
    }

    @Test
    void doctorRefusesBadOptions() {
        docket();
        assertFails(cli("doctor", "--long-transaction", "soon"), 2, "a duration must look like");
        assertFails(cli("doctor", "--long-transaction", "2d"), 2, "--long-transaction must be at most 1d");
        assertFails(cli("doctor", "--history-retention", "-1s"), 2, "duration");
    }

    @Test
    void jobExplainSaysWhyAndRefusesBadIds() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("render", new Task(1), JobOptions.builder().queue("reports").delay(Duration.ofHours(1)).build());

        Run r = cli("job", "explain", Long.toString(id));

        assertOk(r);
        assertThat(r.out()).startsWith("job " + id + " (render on queue reports) is scheduled:")
                .contains("  scheduled: Scheduled for ").contains("  no_worker_for_queue: No live worker serves queue reports.");
        JsonNode json = new ObjectMapper().readTree(cli("job", "explain", Long.toString(id), "--json").out());
        assertThat(json.get("reasons").get(1).get("code").asText()).isEqualTo("no_worker_for_queue");
        assertFails(cli("job", "explain", "0"), 2, "positive whole number");
        assertFails(cli("job", "explain", "abc"), 2, "abc");
        assertFails(cli("job", "explain", Long.toString(id + 1000)), 1, "no job " + (id + 1000));
        assertFails(cli("job"), 2, "give a job id");
        assertOk(cli("job", Long.toString(id)));
    }

    @Test
    void jobSignalSendsASignalAndRefusesBadInputInOneLine() throws Exception {
        Docket docket = docket();
        long waiting = docket.enqueue("ship", new Task(1), JobOptions.builder().awaitSignal("approved").build());

        Run r = cli("job", "signal", Long.toString(waiting), "approved", "--payload", "{\"note\": \"ok\"}", "--by", "ada");

        assertOk(r);
        assertThat(r.out()).isEqualTo("job " + waiting + ": signal approved ended its wait; it is ready"
                + System.lineSeparator());
        var job = docket.job(waiting).orElseThrow();
        assertThat(job.signals()).singleElement().satisfies(s -> {
            assertThat(s.sentBy()).isEqualTo("ada (cli)");
            assertThat(s.payload()).isEqualTo("{\"note\": \"ok\"}");
        });
        Run kept = cli("job", "signal", Long.toString(waiting), "later");
        assertOk(kept);
        assertThat(kept.out()).contains("signal later kept (the job is ready)");

        JsonNode shown = new ObjectMapper().readTree(cli("job", Long.toString(waiting)).out());
        assertThat(shown.get("signals").get(0).get("payload").get("note").asText()).isEqualTo("ok");
        assertThat(shown.get("logs").isArray()).isTrue();

        long other = docket.enqueue("ship", new Task(2), JobOptions.builder().awaitSignal("approved").build());
        assertThat(cli("job", "explain", Long.toString(other)).out())
                .contains("waiting_for_signal: Waits for the signal 'approved'");
        assertFails(cli("job", "signal", Long.toString(other), "a b"), 2, "signal name");
        assertFails(cli("job", "signal", Long.toString(other), "x".repeat(129)), 2, "signal name");
        assertFails(cli("job", "signal", Long.toString(other), "approved\u202e"), 2, "signal name");
        assertFails(cli("job", "signal", Long.toString(other), "approved", "--payload", "{"), 2, "not valid JSON");
        assertFails(cli("job", "signal", Long.toString(other), "approved", "--payload", "{\"a\": 1, \"a\": 2}"), 2,
                "field name twice");
        assertFails(cli("job", "signal", Long.toString(other), "approved", "--payload", "@/no/such/file"), 2,
                "cannot read the --payload file");
        assertFails(cli("job", "signal", Long.toString(other), "approved", "--by", "a\u0007b"), 2, "sentBy");
        assertFails(cli("job", "signal", Long.toString(other), "approved", "--payload",
                "{\"x\": \"" + "y".repeat(300 * 1024) + "\"}"), 2, "payload is");
        assertFails(cli("job", "signal", "0", "approved"), 2, "positive whole number");
        assertFails(cli("job", "signal", "abc", "approved"), 2, "abc");
        assertFails(cli("job", "signal", Long.toString(other)), 2, "NAME");
        assertThat(docket.job(other).orElseThrow().state()).as("nothing was sent").isEqualTo(dev.docket.JobState.WAITING);
        assertFails(cli("job", "signal", Long.toString(other + 1000), "approved"), 1, "no job " + (other + 1000));
        docket.cancel(other);
        assertFails(cli("job", "signal", Long.toString(other), "approved"), 1, "is cancelled: a signal reaches only live jobs");
    }

    @Test
    void sloSetListClear() {
        Docket docket = docket();

        assertOk(cli("slo", "set", "--queue", "email", "--lag", "30s"));
        assertOk(cli("slo", "set", "--kind", "send email", "--pickup-p99", "1500ms"));
        Run list = cli("slo", "list");
        assertOk(list);
        assertThat(list.out()).contains("kind_pickup_p99").contains("send email").contains("1500ms")
                .contains("queue_lag").contains("email").contains("30s");
        assertThat(docket.admin().slos()).extracting(Slo::objective).containsExactly(Duration.ofMillis(1500),
                Duration.ofSeconds(30));

        assertOk(cli("slo", "clear", "--queue", "email"));
        assertThat(docket.admin().slos()).extracting(Slo::name).containsExactly("send email");
    }

    @Test
    void sloRefusesBadInputAndChangesNothing() {
        Docket docket = docket();
        assertFails(cli("slo", "set", "--queue", "email"), 2, "--queue needs --lag DURATION");
        assertFails(cli("slo", "set", "--queue", "email", "--pickup-p99", "1s"), 2, "--pickup-p99 does not go with --queue");
        assertFails(cli("slo", "set", "--queue", "email", "--kind", "k", "--lag", "1s"), 2, "mutually exclusive");
        assertFails(cli("slo", "set", "--lag", "1s"), 2, "missing");
        assertFails(cli("slo", "set", "--queue", "email", "--lag", "0s"), 2, "more than 0 and at most 30d");
        assertFails(cli("slo", "set", "--queue", "email", "--lag", "31d"), 2, "more than 0 and at most 30d");
        assertFails(cli("slo", "set", "--queue", "email", "--lag", "fast"), 2, "a duration must look like");
        assertFails(cli("slo", "set", "--queue", "bad queue!", "--lag", "1s"), 2, "queue");
        assertFails(cli("slo", "set", "--kind", "a\u0007b", "--pickup-p99", "1s"), 2, "kind");
        assertFails(CliRunner.run(env, "slo"), 2, "give a subcommand");
        assertThat(docket.admin().slos()).isEmpty();
    }
}
