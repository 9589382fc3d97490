package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code asyncCommit(true)} under the failure it trades on: PostgreSQL crashes mid-drain
 * ({@code pg_ctl stop -m immediate}: SIGQUIT to the postmaster, no checkpoint, crash recovery at the
 * next start). No job is lost, every job completes once in the history, and every job that ran twice
 * had first run before the database was back, its outcome lost with the crash or unwritable during
 * it. A PostgreSQL of its own, with fsync on.
 */
class AsyncCommitCrashTest {

    record Task(int n) {
    }

    private static final int JOBS = 4000;

    @Test
    @Timeout(300)
    void aDatabaseCrashMidDrainLosesNoJobAndEveryRerunHadRunBeforeTheDatabaseWasBack() throws Exception {
        Path dataDir = Files.createTempDirectory("docket-crash-test");
        EmbeddedPostgres pg = start(dataDir, 0);
        int port = pg.getPort();
        Map<Long, List<Long>> runs = new ConcurrentHashMap<>();
        try (HikariDataSource pool = pool(port)) {
            Docket docket = Docket.builder(pool).schema("crash").build();
            docket.migrate();
            List<Long> ids = docket.enqueueAll(IntStream.range(0, JOBS).mapToObj(i -> NewJob.of("task", new Task(i))).toList());
            try (Worker worker = docket.worker().queue("default", 16).asyncCommit(true)
                    .lease(Duration.ofSeconds(3)).maintenanceInterval(Duration.ofMillis(200))
                    .handler("task", Task.class, (t, ctx) ->
                            runs.computeIfAbsent(ctx.jobId(), id -> new CopyOnWriteArrayList<>()).add(System.nanoTime()))
                    .start()) {
                await().atMost(Duration.ofSeconds(60)).until(() -> runs.size() >= JOBS / 3);

                crash(pg, dataDir);
                pg = start(dataDir, port);
                long backAt = System.nanoTime();

                await("every job completed after the crash").atMost(Duration.ofSeconds(180))
                        .pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                        .until(() -> count(pool, "SELECT count(DISTINCT id) FROM crash.job_history WHERE state = 'completed'") == JOBS
                                && count(pool, "SELECT count(*) FROM crash.jobs") == 0);
                assertThat(worker.isListening()).isTrue();

                assertThat(count(pool, "SELECT count(*) FROM crash.dead_jobs")).as("none dead").isZero();
                assertThat(count(pool, "SELECT count(*) FROM crash.job_history")).as("each completed once").isEqualTo(JOBS);
                assertThat(runs.keySet()).as("every job ran").containsExactlyInAnyOrderElementsOf(ids);
                List<Long> reruns = runs.entrySet().stream().filter(e -> e.getValue().size() > 1).map(Map.Entry::getKey).toList();
                // Jobs held ahead or running when the database went away ran on while it was down; their
                // outcomes, and maybe their claims, were lost with it.
                assertThat(reruns).as("a job ran again only if it had first run before the database came back")
                        .allSatisfy(id -> assertThat(runs.get(id).getFirst()).isLessThan(backAt));
                System.out.printf("AsyncCommitCrashTest: %d of %d jobs ran again after the crash%n", reruns.size(), JOBS);
            }
        } finally {
            pg.close();
        }
    }

    private static EmbeddedPostgres start(Path dataDir, int port) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPGStartupWait(Duration.ofSeconds(60))
                .setDataDirectory(dataDir.toFile())
                .setCleanDataDirectory(false);
        if (port != 0) {
            builder.setPort(port);
        }
        return builder.start();
    }

    /** What {@code pg_ctl stop -m immediate} does: SIGQUIT to the postmaster, then wait for it to exit. */
    private static void crash(EmbeddedPostgres pg, Path dataDir) throws Exception {
        long pid = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).getFirst().trim());
        Process kill = new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
        try {
            pg.close();
        } catch (IOException alreadyDown) {
            // Its server is gone: closing only releases the data directory.
        }
    }

    private static HikariDataSource pool(int port) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
        config.setUsername("postgres");
        config.setMaximumPoolSize(24);
        config.setConnectionTimeout(2_000);
        return new HikariDataSource(config);
    }

    private static long count(HikariDataSource pool, String sql) throws SQLException {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
