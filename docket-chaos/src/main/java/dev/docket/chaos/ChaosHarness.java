package dev.docket.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The chaos harness: proves Docket's at-least-once promise with real processes. It starts an
 * embedded PostgreSQL and several {@link ChaosWorker} JVMs, enqueues jobs over the run, and
 * meanwhile SIGKILLs a random worker every few seconds (starting a replacement), SIGSTOPs one for
 * longer than its lease and then SIGCONTs it (a zombie), and restarts PostgreSQL once. Then it
 * checks: no job lost, none completed twice, every duplicate execution explained by a kill, stall,
 * crash or the restart, and the time from a kill to the re-claim of its jobs. Exits 1 if any
 * invariant fails. {@code --help} lists the options.
 */
public final class ChaosHarness {

    static final String SCHEMA = "chaos";

    private final ChaosOptions o;
    private final Random random = new Random();
    private final List<Path> logs = new ArrayList<>();
    private final Path runDir;
    private EmbeddedPostgres postgres;
    private Path dataDir;
    private int port;
    private String jdbcUrl;
    private HikariDataSource dataSource;
    private final Map<String, Process> workers = new HashMap<>();
    private int nextWorker = 1;
    private final List<Kill> kills = new ArrayList<>();
    private final Set<String> disturbed = new HashSet<>();
    private final Map<String, String> disturbance = new HashMap<>();
    private Instant restartAt;
    private Instant restartDoneAt;

    /**
     * One SIGKILL: when (database clock), whom, the attempts that worker held, and when (database
     * clock) each of those jobs was seen claimed again by another worker or finished.
     */
    private record Kill(String worker, Instant at, Map<Long, Integer> held, Map<Long, Instant> reclaimedAt) {
    }

    private ChaosHarness(ChaosOptions options) throws IOException {
        this.o = options;
        this.runDir = Files.createTempDirectory("docket-chaos-");
    }

    public static void main(String[] args) throws Exception {
        ChaosOptions options = ChaosOptions.parse(args);
        boolean ok = new ChaosHarness(options).run();
        System.exit(ok ? 0 : 1);
    }

    private boolean run() throws Exception {
        System.out.printf(Locale.ROOT, "chaos: %,d jobs (+%d poison), %d workers x %d, kill every %s, zombie %s, "
                        + "database restart %s, lease %s; logs in %s%n", o.jobs(), o.poison(), o.workers(),
                o.concurrency(), o.killEvery(), o.zombie() ? "yes" : "no", o.restartDb() ? "yes" : "no",
                o.lease(), runDir);
        startPostgres(false);
        openPool();
        try (Docket docket = Docket.builder(dataSource).schema(SCHEMA).build()) {
            docket.migrate();
            execute("CREATE TABLE " + SCHEMA + ".ledger (job_id bigint NOT NULL, attempt int NOT NULL, "
                    + "worker text NOT NULL, at timestamptz NOT NULL DEFAULT now())");
            for (int i = 0; i < o.workers(); i++) {
                startWorker();
            }
            long started = System.nanoTime();
            List<Long> enqueued = produceWithChaos(docket, started);
            boolean drained = awaitDrained(started);
            stopWorkers();
            ChaosReport report = retrying(() -> check(enqueued));
            report.print(drained, (System.nanoTime() - started) / 1e9);
            return drained && report.ok();
        } finally {
            for (Process p : workers.values()) {
                p.destroyForcibly();
            }
            if (dataSource != null) {
                dataSource.close();
            }
            if (postgres != null) {
                postgres.close();
            }
        }
    }

    private void startPostgres(boolean restart) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("max_connections", "300")
                .setCleanDataDirectory(false);
        if (restart) {
            builder.setDataDirectory(dataDir.toFile()).setPort(port);
        } else {
            dataDir = runDir.resolve("pgdata");
            builder.setDataDirectory(dataDir.toFile());
        }
        postgres = builder.start();
        port = postgres.getPort();
        jdbcUrl = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    private void openPool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername("postgres");
        config.setMaximumPoolSize(12);
        config.setConnectionTimeout(5_000);
        config.setPoolName("chaos-harness");
        dataSource = new HikariDataSource(config);
    }

    private void startWorker() throws IOException {
        String name = "w" + nextWorker++;
        Path log = runDir.resolve(name + ".log");
        logs.add(log);
        String java = ProcessHandle.current().info().command().orElse("java");
        // A replacement JVM starts every few seconds on two cores: C1-only JIT and the serial collector keep
        // each start from starving the others (and PostgreSQL) of CPU, which would distort the timings measured.
        Process p = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                ChaosWorker.class.getName(), jdbcUrl, name, Long.toString(o.lease().toMillis()),
                Integer.toString(o.concurrency()))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        workers.put(name, p);
    }

    /** Enqueues the jobs spread over the run while killing, stalling and restarting as configured. */
    private List<Long> produceWithChaos(Docket docket, long started) throws Exception {
        List<Long> ids = new ArrayList<>(o.jobs() + o.poison());
        long runNanos = o.duration().toNanos();
        long nextKill = started + o.killEvery().toNanos();
        long zombieAt = o.zombie() ? started + runNanos / 4 : Long.MAX_VALUE;
        long restartAtNanos = o.restartDb() ? started + runNanos / 2 : Long.MAX_VALUE;
        int batches = 100;
        for (int b = 0; b < batches; b++) {
            List<NewJob> batch = new ArrayList<>();
            int from = (int) ((long) o.jobs() * b / batches);
            int to = (int) ((long) o.jobs() * (b + 1) / batches);
            for (int i = from; i < to; i++) {
                batch.add(NewJob.of("chaos", new ChaosWorker.Work(i, random.nextInt(1, 20))));
            }
            if (b == batches / 3) {
                for (int i = 0; i < o.poison(); i++) {
                    batch.add(NewJob.of("poison", new ChaosWorker.Work(-i, 0), JobOptions.builder().maxAttempts(3).build()));
                }
            }
            ids.addAll(enqueueRetrying(docket, batch));
            long batchDeadline = started + runNanos * (b + 1) / batches;
            while (System.nanoTime() < batchDeadline) {
                long now = System.nanoTime();
                if (now >= nextKill) {
                    killOne();
                    nextKill = now + o.killEvery().toNanos();
                } else if (now >= zombieAt) {
                    zombie();
                    zombieAt = Long.MAX_VALUE;
                } else if (now >= restartAtNanos) {
                    restartPostgres();
                    restartAtNanos = Long.MAX_VALUE;
                } else {
                    replaceCrashed();
                    TimeUnit.MILLISECONDS.sleep(50);
                }
            }
        }
        return ids;
    }

    private List<Long> enqueueRetrying(Docket docket, List<NewJob> batch) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return docket.enqueueAll(batch);
            } catch (RuntimeException e) {
                if (attempt >= 60) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    /** A worker that exited by itself (a poison job halted it) is replaced, and its jobs' duplicates are explained. */
    private void replaceCrashed() throws IOException {
        for (Map.Entry<String, Process> e : List.copyOf(workers.entrySet())) {
            if (!e.getValue().isAlive()) {
                workers.remove(e.getKey());
                explain(e.getKey(), "crashed (exit " + e.getValue().exitValue() + ")");
                startWorker();
            }
        }
    }

    /** Kills a random worker among those holding jobs (a worker still starting up proves nothing). */
    private void killOne() throws Exception {
        List<String> alive = workers.entrySet().stream().filter(e -> e.getValue().isAlive()).map(Map.Entry::getKey)
                .sorted().toList();
        if (alive.isEmpty()) {
            return;
        }
        List<String> busy = retrying(() -> {
            List<String> found = new ArrayList<>();
            try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT DISTINCT locked_by FROM " + SCHEMA + ".jobs WHERE state = 'running'")) {
                while (rs.next()) {
                    if (alive.contains(rs.getString(1))) {
                        found.add(rs.getString(1));
                    }
                }
            }
            return found;
        });
        List<String> candidates = busy.isEmpty() ? alive : busy.stream().sorted().toList();
        String victim = candidates.get(random.nextInt(candidates.size()));
        Process p = workers.remove(victim);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        explain(victim, "killed");
        Instant at = retrying(this::dbNow);
        Map<Long, Integer> held = retrying(() -> {
            Map<Long, Integer> found = new HashMap<>();
            try (Connection c = dataSource.getConnection();
                 PreparedStatement ps = c.prepareStatement(
                         "SELECT id, attempt FROM " + SCHEMA + ".jobs WHERE locked_by = ? AND state = 'running'")) {
                ps.setString(1, victim);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.put(rs.getLong(1), rs.getInt(2));
                    }
                }
            }
            return found;
        });
        Kill kill = new Kill(victim, at, held, new ConcurrentHashMap<>());
        kills.add(kill);
        Thread.ofVirtual().name("watch-" + victim).start(() -> watchReclaim(kill));
        System.out.printf(Locale.ROOT, "chaos: SIGKILL %s holding %d jobs%n", victim, held.size());
        startWorker();
    }

    /** Polls until every job the killed worker held has been claimed again (or finished), for up to a minute. */
    private void watchReclaim(Kill kill) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (kill.reclaimedAt().size() < kill.held().size() && System.nanoTime() < deadline) {
            try (Connection c = dataSource.getConnection();
                 PreparedStatement ps = c.prepareStatement("""
                         SELECT f.id, now() FROM unnest(?::bigint[], ?::int[]) AS f(id, attempt)
                           LEFT JOIN %s.jobs j ON j.id = f.id
                          WHERE j.id IS NULL OR j.attempt > f.attempt""".formatted(SCHEMA))) {
                List<Long> ids = new ArrayList<>(kill.held().keySet());
                ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                ps.setArray(2, c.createArrayOf("int4", ids.stream().map(kill.held()::get).toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        kill.reclaimedAt().putIfAbsent(rs.getLong(1), rs.getObject(2, OffsetDateTime.class).toInstant());
                    }
                }
                TimeUnit.MILLISECONDS.sleep(50);
            } catch (SQLException e) {
                // The database is restarting: keep watching.
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void zombie() throws Exception {
        List<String> alive = workers.entrySet().stream().filter(e -> e.getValue().isAlive()).map(Map.Entry::getKey)
                .sorted().toList();
        if (alive.isEmpty()) {
            return;
        }
        String victim = alive.get(random.nextInt(alive.size()));
        long pid = workers.get(victim).pid();
        Duration stall = o.lease().multipliedBy(2).plusSeconds(1);
        System.out.printf(Locale.ROOT, "chaos: SIGSTOP %s for %s (longer than its lease)%n", victim, stall);
        signal("STOP", pid);
        explain(victim, "stalled (SIGSTOP)");
        long until = System.nanoTime() + stall.toNanos();
        while (System.nanoTime() < until) {
            replaceCrashed();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        signal("CONT", pid);
        System.out.printf(Locale.ROOT, "chaos: SIGCONT %s%n", victim);
    }

    private void restartPostgres() throws Exception {
        System.out.println("chaos: restarting PostgreSQL");
        restartAt = Instant.now();
        // The pool stays open: like the workers' pools, it must reconnect to the same port by itself.
        postgres.close();
        startPostgres(true);
        restartDoneAt = Instant.now();
        System.out.printf(Locale.ROOT, "chaos: PostgreSQL back after %d ms%n",
                Duration.between(restartAt, restartDoneAt).toMillis());
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
        }
    }

    private void explain(String worker, String what) {
        disturbed.add(worker);
        disturbance.merge(worker, what, (a, b) -> a + ", " + b);
    }

    private boolean awaitDrained(long started) throws Exception {
        long deadline = started + o.timeout().toNanos();
        while (System.nanoTime() < deadline) {
            replaceCrashed();
            if (retrying(() -> count("SELECT count(*) FROM " + SCHEMA + ".jobs")) == 0) {
                return true;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        System.out.println("chaos: timed out waiting for the queue to drain");
        return false;
    }

    private void stopWorkers() throws InterruptedException {
        for (Process p : workers.values()) {
            p.destroy();
        }
        for (Process p : workers.values()) {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private ChaosReport check(List<Long> enqueued) throws SQLException {
        ChaosReport r = new ChaosReport(o.poison());
        r.enqueued = enqueued.size();
        Set<Long> completed = new HashSet<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT id, count(*) FROM " + SCHEMA
                    + ".job_history WHERE state = 'completed' GROUP BY id")) {
                while (rs.next()) {
                    completed.add(rs.getLong(1));
                    if (rs.getLong(2) > 1) {
                        r.doubleCompletions++;
                    }
                }
            }
            Set<Long> dead = new HashSet<>();
            try (ResultSet rs = st.executeQuery("SELECT id, kind FROM " + SCHEMA + ".dead_jobs")) {
                while (rs.next()) {
                    dead.add(rs.getLong(1));
                    if (!"poison".equals(rs.getString(2))) {
                        r.unexpectedDead++;
                    } else {
                        r.poisonDead++;
                    }
                    if (completed.contains(rs.getLong(1))) {
                        r.doubleCompletions++;
                    }
                }
            }
            for (long id : enqueued) {
                if (!completed.contains(id) && !dead.contains(id)) {
                    r.lost++;
                }
            }
            r.completed = completed.size();
            Map<Long, List<String[]>> executions = new HashMap<>();
            try (ResultSet rs = st.executeQuery("SELECT job_id, attempt, worker, at FROM " + SCHEMA
                    + ".ledger ORDER BY job_id, at")) {
                while (rs.next()) {
                    executions.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>())
                            .add(new String[] {rs.getString(2), rs.getString(3),
                                    rs.getObject(4, OffsetDateTime.class).toInstant().toString()});
                }
            }
            for (List<String[]> runs : executions.values()) {
                r.executions += runs.size();
                if (runs.size() > 1) {
                    r.duplicated++;
                    // Every execution but the last must have been cut short by something the harness did.
                    for (String[] run : runs.subList(0, runs.size() - 1)) {
                        if (disturbed.contains(run[1])) {
                            r.explained.merge(disturbance.get(run[1]).replaceAll(".*(killed|stalled|crashed).*", "$1"),
                                    1, Integer::sum);
                        } else if (duringRestart(Instant.parse(run[2]))) {
                            r.explained.merge("database restart", 1, Integer::sum);
                        } else {
                            r.unexplained++;
                        }
                    }
                }
            }
            for (Kill kill : kills) {
                try (PreparedStatement ps = c.prepareStatement("""
                        SELECT max(e.at) FROM (
                            SELECT (x->>'at')::timestamptz AS at FROM %1$s.job_history h,
                                   jsonb_array_elements(h.errors) x
                             WHERE h.id = ANY (?) AND x->>'worker' = ? AND x->>'error' LIKE 'lease expired%%'
                            UNION ALL
                            SELECT (x->>'at')::timestamptz FROM %1$s.dead_jobs d, jsonb_array_elements(d.errors) x
                             WHERE d.id = ANY (?) AND x->>'worker' = ? AND x->>'error' LIKE 'lease expired%%') e
                        """.formatted(SCHEMA))) {
                    ps.setArray(1, c.createArrayOf("bigint", kill.held().keySet().toArray()));
                    ps.setString(2, kill.worker());
                    ps.setArray(3, c.createArrayOf("bigint", kill.held().keySet().toArray()));
                    ps.setString(4, kill.worker());
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        OffsetDateTime rescued = rs.getObject(1, OffsetDateTime.class);
                        System.out.printf(Locale.ROOT, "chaos: %s killed holding %d jobs; last rescued after %s ms%n",
                                kill.worker(), kill.held().size(),
                                rescued == null ? "-" : Duration.between(kill.at(), rescued.toInstant()).toMillis());
                    }
                }
                for (long id : kill.held().keySet()) {
                    Instant reclaimed = kill.reclaimedAt().get(id);
                    if (reclaimed != null) {
                        r.reclaimMillis.add(Duration.between(kill.at(), reclaimed).toMillis());
                    } else {
                        r.neverReclaimed++;
                    }
                }
            }
        }
        r.kills = kills.size();
        r.bound = o.lease().plusMillis(200).plusSeconds(2);
        return r;
    }

    /** Whether an execution started close enough to the restart that the outage may have cost it its lease. */
    private boolean duringRestart(Instant executionStart) {
        return restartAt != null && !executionStart.isBefore(restartAt.minus(o.lease()).minusSeconds(1))
                && !executionStart.isAfter(restartDoneAt.plusSeconds(1));
    }

    private interface SqlCall<T> {
        T call() throws SQLException;
    }

    /**
     * Runs a harness query, retrying for up to 30 s: right after the PostgreSQL restart the pool still
     * hands out connections the restart broke, and the harness must ride that out like the workers do.
     */
    private static <T> T retrying(SqlCall<T> call) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return call.call();
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    private Instant dbNow() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    private long count(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
