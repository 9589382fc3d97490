package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static dev.docket.server.cli.CliTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.Worker;
import dev.docket.WorkerInfo;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** {@code docket workers}: each worker's line from its heartbeat row, as a table or as GET /api/workers's JSON. */
class WorkersCliTest extends DocketTest {

    record Task(int n) {
    }

    private Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", db.jdbcUrl(), "--schema", schema));
        return CliRunner.run(Map.of(), all.toArray(String[]::new));
    }

    @Test
    void eachWorkerHasItsLineWithHandlersRunningAndTheLastMinutesAttempts() throws Exception {
        Docket docket = docket();
        assertThat(cli("workers").out()).isEqualTo("No worker is registered." + System.lineSeparator());
        CountDownLatch release = new CountDownLatch(1);
        Worker busy = worker(docket, w -> w.queue("default", 4).queue("email", 2).lease(Duration.ofSeconds(1))
                .handler("quick", Task.class, (t, ctx) -> { })
                .handler("blocks", Task.class, (t, ctx) -> release.await()));
        try {
            for (int i = 0; i < 3; i++) {
                docket.enqueue("quick", new Task(i));
            }
            docket.enqueue("blocks", new Task(9));
            WorkerInfo info = Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                    .until(() -> docket.admin().workers().getFirst(),
                            w -> w.handlersRunning() == 1 && w.finishedLastMinute() == 3);

            Run table = cli("workers");

            assertOk(table);
            List<String> lines = table.out().lines().toList();
            assertThat(lines.getFirst()).matches("WORKER +HOST +PID +QUEUES +RUNNING +DONE/MIN +FAILED/MIN +LAST HEARTBEAT +LIVE");
            assertThat(lines).hasSize(2);
            assertThat(lines.get(1)).startsWith(busy.workerId()).contains(" " + info.host() + " ")
                    .contains(" " + ProcessHandle.current().pid() + " ").contains(" default=4,email=2 ")
                    .contains(" 1/6 ").containsPattern(" 3 +0 +[0-9.]+s ago +yes$");

            JsonNode json = new ObjectMapper().readTree(cli("workers", "--json").out());
            JsonNode row = json.get("workers").get(0);
            assertThat(row.get("id").asText()).isEqualTo(busy.workerId());
            assertThat(row.get("concurrency").asInt()).isEqualTo(6);
            assertThat(row.get("handlersRunning").asInt()).isEqualTo(1);
            assertThat(row.get("finishedLastMinute").asLong()).isEqualTo(3);
            assertThat(row.get("failedLastMinute").asLong()).isZero();
            assertThat(row.get("heartbeatAgeSeconds").asDouble()).isBetween(0.0, 10.0);
            assertThat(row.get("heartbeatAt").asText()).endsWith("Z");
        } finally {
            release.countDown();
        }
    }

    /** A worker whose heartbeats stopped is listed with LIVE no, and left out by --live. */
    @Test
    void liveLeavesOutWorkersWhoseHeartbeatsStopped() {
        Docket docket = docket();
        Worker live = worker(docket, w -> w.queue("default", 1).handler("quick", Task.class, (t, ctx) -> { }));
        execute("INSERT INTO {s}.workers (id, host, pid, queues, kinds, version, connections_needed, listen, listening, "
                + "heartbeat_interval_ms, started_at, heartbeat_at) VALUES ('gone/1', 'old-host', 1, '{\"default\": 8}', "
                + "'{}', 'v', 8, true, true, 1000, now() - interval '10 minutes', now() - interval '5 minutes')");

        Run all = cli("workers");
        assertOk(all);
        assertThat(all.out()).contains("gone/1").containsPattern("gone/1 .* 0/8 .* no\\R");
        Run onlyLive = cli("workers", "--live");
        assertOk(onlyLive);
        assertThat(onlyLive.out()).contains(live.workerId()).doesNotContain("gone/1");
        live.close();
        assertThat(cli("workers", "--live").out()).isEqualTo("No live worker." + System.lineSeparator());
    }

    /** Bad input is one line on stderr and exit status 2, before any database work. */
    @Test
    void malformedAndHostileInputIsRefusedInOneLine() {
        assertFails(cli("workers", "--bogus"), 2, "Unknown option: '--bogus'");
        assertFails(cli("workers", "extra"), 2, "Unmatched argument");
        assertFails(cli("workers", "--live=maybe"), 2, "--live");
        assertFails(cli("workers", "--json", "x".repeat(100_000)), 2, "Unmatched argument");
        assertFails(CliRunner.run(Map.of(), "workers", "--database-url", db.jdbcUrl(), "--schema",
                "bad schema; DROP TABLE x"), 2, "schema");
        assertFails(CliRunner.run(Map.of(), "workers", "--database-url", "not a url\u0000"), 2, "database");
    }
}
