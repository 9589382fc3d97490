package dev.docket.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docket demo} as a process of its own, the way scripts and CI run it, leaves nothing behind:
 * killed with SIGKILL, its PostgreSQL, its worker and its directory go away by themselves; SIGINT stops it
 * cleanly; its server's metrics count the cluster and each worker serves its own. Each demo gets a temporary
 * directory of its own, so other demos on this machine are neither
 * seen nor touched. A demo started in the background of a script (SIGINT ignored) is stopped with SIGINT
 * through {@code bin/docket} by {@code .ci/demo-smoke}, which needs the built jar.
 */
@Timeout(240)
class DemoProcessTest {

    private static final Pattern RUN_DIRECTORY = Pattern.compile("\\n\\s+in (/\\S+), stopped and deleted");
    /** README.md: killed with kill -9, the demo's "PostgreSQL, its worker JVMs and its database directory are gone within 5 s". */
    private static final Duration GONE_AFTER_SIGKILL = Duration.ofSeconds(5);
    private static final Pattern DATABASE = Pattern.compile("Database +(jdbc:\\S+)");
    private static final Pattern WORKER_PID = Pattern.compile("worker-1 pid (\\d+)");
    private static final Pattern TOKEN = Pattern.compile("Login token +(\\S+)");
    private static final Pattern DASHBOARD = Pattern.compile("Dashboard +(http://\\S+)/");
    private static final Pattern WORKER_METRICS = Pattern.compile("worker-(\\d+) +(http://127\\.0\\.0\\.1:\\d+/metrics)");

    @TempDir
    Path tmp;

    private Process demo;

    /** What a running demo printed in its banner, and the processes it started. */
    record Started(Path runDirectory, ProcessHandle postgres, ProcessHandle worker) {
    }

    @AfterEach
    void killWhatIsLeft() {
        if (demo != null) {
            demo.destroyForcibly();
        }
    }

    /**
     * What the README promises: killed with SIGKILL, the demo's PostgreSQL, its workers and its directory
     * are gone within {@link #GONE_AFTER_SIGKILL}. The kill comes while the worker runs jobs, which a worker
     * stopping gracefully would try to give back to a database that is going away. The processes are
     * awaited through their exit events, all against one deadline taken at the kill.
     */
    @Test
    void aDemoKilledWithSigkillLeavesNoPostgresWorkerOrDirectoryBehind() throws Exception {
        demo = startDemo();
        Started started = awaitBanner();
        Matcher database = DATABASE.matcher(log());
        assertThat(database.find()).as(log()).isTrue();
        try (Connection c = DriverManager.getConnection(database.group(1));
             PreparedStatement running = c.prepareStatement("SELECT count(*) FROM docket.jobs WHERE state = 'running'")) {
            Awaitility.await("the worker runs a job").atMost(Duration.ofSeconds(60)).until(() -> {
                try (ResultSet rs = running.executeQuery()) {
                    return rs.next() && rs.getLong(1) > 0;
                }
            });
        }

        demo.destroyForcibly();
        long deadline = System.nanoTime() + GONE_AFTER_SIGKILL.toNanos();

        assertGoneBy(deadline, started.worker(), "the worker");
        assertGoneBy(deadline, started.postgres(), "PostgreSQL");
        Awaitility.await("the run directory deleted").atMost(remaining(deadline)).pollInterval(Duration.ofMillis(50))
                .until(() -> !Files.exists(started.runDirectory()));
    }

    private static void assertGoneBy(long deadline, ProcessHandle process, String what) throws Exception {
        try {
            process.onExit().get(remaining(deadline).toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " (pid " + process.pid() + ") still runs " + GONE_AFTER_SIGKILL
                    + " after the demo was killed with SIGKILL", e);
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
    }

    @Test
    void sigintStopsTheDemoCleanly() throws Exception {
        demo = startDemo();
        Started started = awaitBanner();

        new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).inheritIO().start().waitFor();

        Awaitility.await("the demo exited after SIGINT").atMost(Duration.ofSeconds(120)).until(() -> !demo.isAlive());
        assertThat(demo.exitValue()).as(log()).isZero();
        assertThat(log()).contains("[demo] stopping").contains("[demo] stopped.");
        assertThat(started.postgres().isAlive()).isFalse();
        assertThat(started.worker().isAlive()).isFalse();
        assertThat(started.runDirectory()).doesNotExist();
    }

    /**
     * What the issue asks of the demo: the server's /metrics (with the banner's token) shows the cluster's
     * completed total rising within 30 s of the banner, and each worker's metrics URL from the banner
     * shows that worker's own completed counter, served by the worker's JVM without a token.
     */
    @Test
    void theServersMetricsCountTheClusterAndEachWorkerServesItsOwn() throws Exception {
        demo = startDemo(2, 20);
        awaitBanner();
        long bannerAt = System.nanoTime();
        Matcher token = TOKEN.matcher(log());
        Matcher dashboard = DASHBOARD.matcher(log());
        assertThat(token.find() && dashboard.find()).as(log()).isTrue();
        List<String> workerUrls = new ArrayList<>();
        Matcher worker = WORKER_METRICS.matcher(log());
        while (worker.find()) {
            workerUrls.add(worker.group(2));
        }
        assertThat(workerUrls).as(log()).hasSize(2);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        String serverMetrics = dashboard.group(1) + "/metrics";

        List<Long> seen = new ArrayList<>();
        Awaitility.await("the cluster's completed total rising").atMost(Duration.ofSeconds(30)).until(() -> {
            seen.add(sum(get(http, serverMetrics, token.group(1)), "docket_cluster_jobs_completed_total{"));
            return seen.stream().filter(n -> n > 0).distinct().count() >= 2;
        });
        assertThat(seen).isSorted();
        assertThat(Duration.ofNanos(System.nanoTime() - bannerAt)).isLessThan(Duration.ofSeconds(31));
        for (String url : workerUrls) {
            String own = Awaitility.await("worker metrics at " + url).atMost(Duration.ofSeconds(60))
                    .until(() -> get(http, url, null), text -> sum(text, "docket_jobs_completed_total{") > 0);
            assertThat(own).doesNotContain("docket_cluster_").contains("docket_worker_concurrency{queue=\"default\"} 16.0");
        }
    }

    /**
     * {@code docket demo --second-database}: two embedded PostgreSQL servers behind one server, each with
     * jobs running; /api/databases shows both; every metric carries its database; SIGINT stops both.
     */
    @Test
    void aDemoWithASecondDatabaseServesBothAndStopsBoth() throws Exception {
        demo = startDemo(1, 20, "--second-database");
        Started started = awaitBanner();
        Matcher token = TOKEN.matcher(log());
        Matcher dashboard = DASHBOARD.matcher(log());
        assertThat(token.find() && dashboard.find()).as(log()).isTrue();
        Matcher secondUrl = Pattern.compile("Database 'imaging' (jdbc:\\S+)").matcher(log());
        assertThat(secondUrl.find()).as(log()).isTrue();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        Awaitility.await("jobs completed in the second database").atMost(Duration.ofSeconds(60)).until(() -> {
            var body = json.readTree(get(http, dashboard.group(1) + "/api/databases", token.group(1)));
            assertThat(body.get("databases")).extracting(d -> d.get("name").asText()).containsExactly("default", "imaging");
            return sum(get(http, dashboard.group(1) + "/metrics", token.group(1)),
                    "docket_cluster_jobs_completed_total{database=\"imaging\"") > 0;
        });
        assertThat(get(http, dashboard.group(1) + "/metrics", token.group(1)))
                .contains("docket_cluster_workers{database=\"default\"}");

        new ProcessBuilder("kill", "-INT", Long.toString(demo.pid())).inheritIO().start().waitFor();
        Awaitility.await("the demo exited after SIGINT").atMost(Duration.ofSeconds(120)).until(() -> !demo.isAlive());
        assertThat(demo.exitValue()).as(log()).isZero();
        assertThat(started.postgres().isAlive()).isFalse();
        try (var runs = Files.list(tmp)) {
            assertThat(runs.filter(p -> p.getFileName().toString().startsWith("docket-demo-")).toList())
                    .as("both PostgreSQL runs deleted").isEmpty();
        }
    }

    private static String get(HttpClient http, String url, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(url).isEqualTo(200);
        return r.body();
    }

    /** The sum of the samples whose lines start with {@code prefix} in a Prometheus text exposition. */
    private static long sum(String exposition, String prefix) {
        return exposition.lines().filter(l -> l.startsWith(prefix))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private Process startDemo() throws IOException {
        return startDemo(1, 5);
    }

    private Process startDemo(int workers, int jobsPerSecond, String... more) throws IOException {
        List<String> command = new ArrayList<>();
        // As bin/docket starts it: with SIGINT at its default even when this test runs in the background.
        command.addAll(List.of("env", "--default-signal=INT"));
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + tmp,
                // The PostgreSQL binaries stay where every run unpacks them, not in each test's directory.
                "-Dot.epg.working-dir=" + Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg"),
                "-cp", System.getProperty("java.class.path"),
                DocketCommand.class.getName(), "demo", "--port", Integer.toString(freePorts(workers + 1)), "--workers",
                Integer.toString(workers), "--jobs-per-second", Integer.toString(jobsPerSecond)));
        command.addAll(List.of(more));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(tmp.resolve("demo.log").toFile())
                .start();
    }

    private Started awaitBanner() {
        Matcher run = Awaitility.await("the demo's banner").atMost(Duration.ofSeconds(150))
                .until(() -> {
                    assertThat(demo.isAlive()).as("the demo is running; its output: %s", log()).isTrue();
                    return RUN_DIRECTORY.matcher(log());
                }, Matcher::find);
        Matcher worker = WORKER_PID.matcher(log());
        assertThat(worker.find()).as(log()).isTrue();
        Path runDirectory = Path.of(run.group(1));
        assertThat(runDirectory).startsWith(tmp);
        ProcessHandle postgres = postmaster(runDirectory).orElseThrow();
        assertThat(postgres.isAlive()).isTrue();
        return new Started(runDirectory, postgres, ProcessHandle.of(Long.parseLong(worker.group(1))).orElseThrow());
    }

    private static Optional<ProcessHandle> postmaster(Path runDirectory) {
        try {
            String pid = Files.readAllLines(runDirectory.resolve("data/postmaster.pid")).getFirst().strip();
            return ProcessHandle.of(Long.parseLong(pid));
        } catch (IOException e) {
            throw new IllegalStateException("no postmaster.pid in " + runDirectory, e);
        }
    }

    private String log() {
        try {
            return Files.readString(tmp.resolve("demo.log"));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    /** The first of {@code n} consecutive ports free now on 127.0.0.1: the dashboard's, then the workers' metrics. */
    private static int freePorts(int n) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int first;
            try (ServerSocket socket = new ServerSocket(0)) {
                first = socket.getLocalPort();
            }
            if (first + n - 1 <= 65535 && IntStream.range(0, n).allMatch(i -> free(first + i))) {
                return first;
            }
        }
        throw new IllegalStateException("no " + n + " consecutive free ports found");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
