package dev.docket.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.NewJob;
import dev.docket.OutcomeTotals;
import dev.docket.server.DocketServer;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.testing.DocketTest;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cluster's counters across a worker process killed with SIGKILL mid-drain and started again (the
 * demo's supervisor, {@link WorkerProcesses}, restarts it): read every 100 ms from the database and
 * from the server's {@code /metrics}, they never go down; at the end the completed total is the number
 * of jobs (each completion counted once, though the killed worker's jobs ran again), and the failed
 * attempts are exactly the leases the kill lost, as the jobs' error histories record them.
 */
@Timeout(180)
class ClusterCountersKillTest extends DocketTest {

    private static final int JOBS = 1_500;
    private static final String TOKEN = "viewer-token-for-the-kill-test";

    @Test
    void theCountersNeverGoDownAndCountEachCompletionOnceAcrossAKilledWorker() throws Exception {
        Docket docket = docket();
        TokenStore tokens = new TokenStore();
        tokens.add(Role.VIEWER, TOKEN);
        DocketServer server = closeAfter(DocketServer.start(docket, tokens,
                new DocketServer.Config("127.0.0.1", 0, 256 * 1024, Duration.ofHours(1), Duration.ofMillis(100))));
        closeAfter(MaintenanceLeader.start(docket));
        docket.enqueueAll(IntStream.range(0, JOBS)
                .mapToObj(i -> NewJob.of("thumbnail", new DemoHandlers.Thumbnail("img-" + i, 320))).toList());

        List<Long> fromDatabase = new CopyOnWriteArrayList<>();
        List<Long> fromMetrics = new CopyOnWriteArrayList<>();
        HttpClient http = HttpClient.newHttpClient();
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
        watcher.scheduleWithFixedDelay(() -> {
            fromDatabase.add(docket.admin().outcomeTotals().stream().mapToLong(OutcomeTotals::completed).sum());
            fromMetrics.add(completedOnMetrics(http, server));
        }, 0, 100, TimeUnit.MILLISECONDS);

        StringWriter log = new StringWriter();
        int metricsPort;
        try (ServerSocket free = new ServerSocket(0)) {
            metricsPort = free.getLocalPort();
        }
        try (WorkerProcesses workers = new WorkerProcesses(List.of("--database-url", db.jdbcUrl(), "--schema", schema,
                "--queue", "default=8", "--lease", "2s", "--shutdown-grace", "1s", "--no-maintenance"), 1, metricsPort,
                Duration.ofSeconds(2), Duration.ofSeconds(20), new DemoLog(new PrintWriter(log)))) {
            workers.start();
            long firstPid = workers.pids().get(1);
            Awaitility.await("a third of the jobs done, some running").atMost(Duration.ofSeconds(60))
                    .until(() -> queryLong("SELECT count(*) FROM {s}.job_history") >= JOBS / 3
                            && queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'running'") > 0);

            ProcessHandle.of(firstPid).orElseThrow().destroyForcibly();

            Awaitility.await("the supervisor starts a new worker").atMost(Duration.ofSeconds(60))
                    .until(() -> workers.pids().get(1) != firstPid && workers.alive() == 1);
            Awaitility.await("every job completed").atMost(Duration.ofSeconds(90))
                    .until(() -> queryLong("SELECT count(*) FROM {s}.job_history") == JOBS);
        }
        server.metrics().refresh();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> fromMetrics.getLast() == JOBS);
        watcher.shutdown();
        assertThat(watcher.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

        assertThat(fromDatabase).as("the database's totals, read all along").isSorted().contains((long) JOBS);
        assertThat(fromMetrics).as("the server's docket_cluster_jobs_completed_total, scraped all along").isSorted();
        assertThat(fromMetrics.stream().distinct().count()).as("it rose while the jobs ran").isGreaterThan(3);
        OutcomeTotals totals = docket.admin().outcomeTotals().getFirst();
        assertThat(totals.completed()).as("each completion once").isEqualTo(JOBS);
        long lostLeases = queryLong("SELECT coalesce(sum(jsonb_array_length(errors)), 0) FROM {s}.job_history");
        assertThat(lostLeases).as("the killed worker's attempts, rescued").isPositive();
        assertThat(totals.failedAttempts()).isEqualTo(lostLeases);
        assertThat(totals.dead()).isZero();
        assertThat(log.toString()).contains("worker-1 restarted as pid");
    }

    private static long completedOnMetrics(HttpClient http, DocketServer server) {
        String text;
        try {
            text = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/metrics"))
                    .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return text.lines().filter(l -> l.startsWith("docket_cluster_jobs_completed_total{"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
