package dev.docket.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The benchmark: Docket side by side with db-scheduler, JobRunr, graphile-worker, pg-boss and a raw-SQL
 * SKIP LOCKED loop, each on a fresh database of one PostgreSQL, in the same run. {@code --help} lists the
 * options. The process exits with 1 when any measurement failed (its row says why), else with 3 when one
 * of Docket's drains stalled (a gap between handler starts over {@link StartGaps#threshold()}; its row
 * says so), else with 0; 2 is a bad command line. A peer's stall is flagged in its row alike, but is a
 * fact about the peer (the raw loop at B=1000 leaves workers without a batch while others hold 1,000
 * jobs each), not a failure of this run: the exit status is the liveness check of Docket.
 */
public final class Bench {

    static final int EXIT_FAILED = 1;
    static final int EXIT_BAD_OPTIONS = 2;
    static final int EXIT_STALLED = 3;

    /**
     * One measurement: the median over reps is taken per (system, scenario, config, metric).
     *
     * @param stalls each repetition's stall, parallel to {@code values}: what {@link StartGaps#describe()}
     *               said of a flagged drain, empty for every other repetition
     */
    record Row(String scenario, String system, String config, String metric, String unit, List<Double> values,
               List<String> stalls) {

        boolean stalled() {
            return stalls.stream().anyMatch(s -> !s.isEmpty());
        }

        double median() {
            double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        }

        double min() {
            return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }

        double max() {
            return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }
    }

    /** One measurement's figures, and a drain's stall when its gaps between starts flag one (else null). */
    record Measurement(Map<String, double[]> metrics, String stall) {
        static Measurement of(Map<String, double[]> metrics) {
            return new Measurement(metrics, null);
        }
    }

    private final BenchOptions o;
    private final Map<String, Row> rows = new LinkedHashMap<>();
    /** One Node process per Node system for the whole run, so that it is warmed up like a JVM system. */
    private final Map<String, NodeDriver> nodeDrivers = new LinkedHashMap<>();
    /** The systems that had their first warm-up drain in this run. */
    private final Set<String> warmSystems = new HashSet<>();
    private final Map<String, String> settings = new LinkedHashMap<>();
    private String adminUrl;
    /** Measurements begun, warm-ups included; each had a database of its own. */
    private int dbCounter;

    Bench(BenchOptions o) {
        this.o = o;
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench: " + e.getMessage() + " (--help lists the options)");
            System.exit(EXIT_BAD_OPTIONS);
            return;
        }
        List<Row> rows = new Bench(options).run();
        long failed = rows.stream().filter(Bench::failed).count();
        if (failed > 0) {
            log(failed + " measurement(s) failed: see the error rows above");
        }
        long stalled = rows.stream().filter(r -> r.metric().equals(Drain.STALL_METRIC) && r.stalled()).count();
        if (stalled > 0) {
            log(stalled + " drain configuration(s) stalled: see the rows marked ⚠ stall above");
        }
        System.exit(exitStatus(rows));
    }

    private static boolean failed(Row r) {
        return r.metric().startsWith("error");
    }

    /** 1 when a measurement failed, else 3 when a drain of Docket stalled, else 0. */
    static int exitStatus(List<Row> rows) {
        if (rows.stream().anyMatch(Bench::failed)) {
            return EXIT_FAILED;
        }
        return rows.stream().anyMatch(r -> r.system().equals("docket") && r.stalled()) ? EXIT_STALLED : 0;
    }

    /** Runs the whole benchmark; returns the rows (also written to {@code out}). */
    List<Row> run() throws Exception {
        EmbeddedPostgres pg = null;
        try {
            if (o.databaseUrl() != null) {
                adminUrl = o.databaseUrl();
            } else {
                log("starting embedded PostgreSQL ...");
                pg = EmbeddedPostgres.builder()
                        .setPGStartupWait(Duration.ofSeconds(60))
                        .setServerConfig("max_connections", "300")
                        .setServerConfig("synchronous_commit", o.synchronousCommit())
                        // zonky turns these off by default for tests; a benchmark of durable queues needs them on
                        .setServerConfig("fsync", "on")
                        .setServerConfig("full_page_writes", "on")
                        .start();
                adminUrl = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres?user=postgres";
            }
            recordSettings();
            settings.forEach((k, v) -> log(k + ": " + v));
            // Scenario by scenario, every system in turn: the systems a figure compares are measured minutes
            // apart, not a whole run apart, and the files written after each scenario keep what an
            // interrupted run measured.
            for (String scenario : o.scenarios()) {
                for (String system : o.systems()) {
                    runScenario(system, scenario);
                }
                new Report(List.copyOf(rows.values()), settings, o).write(false);
            }
            new Report(List.copyOf(rows.values()), settings, o).write(true);
            return List.copyOf(rows.values());
        } finally {
            for (NodeDriver driver : nodeDrivers.values()) {
                driver.close();
            }
            if (pg != null) {
                pg.close();
            }
        }
    }

    private void recordSettings() throws Exception {
        try (Connection c = DriverManager.getConnection(adminUrl)) {
            settings.put("postgres", Db.string(c, "SHOW server_version"));
            settings.put("synchronous_commit", o.synchronousCommit() + " (server default "
                    + Db.string(c, "SHOW synchronous_commit") + ")");
            settings.put("fsync", Db.string(c, "SHOW fsync"));
            settings.put("full_page_writes", Db.string(c, "SHOW full_page_writes"));
            settings.put("wal_sync_method", Db.string(c, "SHOW wal_sync_method"));
            settings.put("shared_buffers", Db.string(c, "SHOW shared_buffers"));
        }
        settings.put("database", o.databaseUrl() == null ? "embedded (zonky), same host" : "external");
        settings.put("cpus", String.valueOf(Runtime.getRuntime().availableProcessors()));
        settings.put("jvm", System.getProperty("java.vm.name") + " " + Runtime.version());
        settings.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        if (o.systems().contains("graphile-worker") || o.systems().contains("pg-boss")) {
            settings.put("node peers (npm)", NodeRuntime.pinnedVersions());
        }
        settings.put("jobs", String.valueOf(o.jobs()));
        settings.put("reps", String.valueOf(o.reps()));
        settings.put("warm-up", o.warmups() == 0 ? "none" : "every system: a " + String.format(Locale.ROOT, "%,d",
                WARM_UP_JOBS) + "-job drain before its first measurement, then " + o.warmups()
                + " untimed run(s) of each configuration before its timed ones ("
                + String.join(", ", WARMED_UP.stream().sorted().toList()) + ")");
        settings.put("mode", o.quick() ? "short" : "full");
        settings.put("date", Instant.now().toString());
    }

    private Sut newSut(String system) {
        return switch (system) {
            case "docket" -> new DocketSut();
            case "raw" -> new RawSut();
            case "db-scheduler" -> new DbSchedulerSut();
            case "jobrunr" -> new JobRunrSut();
            case "graphile-worker" -> NodeSut.graphileWorker(nodeDriver(system));
            case "pg-boss" -> NodeSut.pgBoss(nodeDriver(system));
            default -> throw new IllegalArgumentException("unknown system " + system + "; known: " + BenchOptions.ALL_SYSTEMS);
        };
    }

    /** The run's Node process for this system, started on its first call. */
    private NodeDriver nodeDriver(String system) {
        return nodeDrivers.computeIfAbsent(system, NodeDriver::new);
    }

    /** One measured setting of a scenario: worker concurrency, worker processes (scale-out) and its label. */
    private record Point(int concurrency, int processes, String label) {
    }

    private List<Point> points(String scenario, String config) {
        List<Point> points = new ArrayList<>();
        switch (scenario) {
            case "drain" -> o.concurrencies().forEach(c -> points.add(new Point(c, 1, config + " c=" + c)));
            case "scaleout" -> o.concurrencies().forEach(c -> o.processes().forEach(p ->
                    points.add(new Point(c, p, p + (p == 1 ? " JVM" : " JVMs") + " × c=" + c))));
            case "steady", "soak" -> points.add(new Point(8, 1, config + " c=8"));
            default -> points.add(new Point(8, 1, config));
        }
        return points;
    }

    private void runScenario(String system, String scenario) {
        Sut described = newSut(system);
        for (String config : described.configs(scenario)) {
            if (o.configs().isEmpty() ? described.optIn(config) : !o.configs().contains(config)) {
                continue;
            }
            List<Point> points = points(scenario, config);
            if (!warmUpSystem(system, described) || !warmUp(system, scenario, config, points.getFirst())) {
                return;
            }
            for (Point point : points) {
                String label = point.label();
                for (int rep = 0; rep < o.reps(); rep++) {
                    log(String.format(Locale.ROOT, "%s %s [%s] rep %d/%d", system, scenario, label, rep + 1, o.reps()));
                    try {
                        Measurement m = measure(system, scenario, config, point, o.jobs());
                        for (var e : m.metrics().entrySet()) {
                            String key = scenario + "|" + system + "|" + label + "|" + e.getKey();
                            String unit = unitOf(e.getKey());
                            Row row = rows.computeIfAbsent(key, k -> new Row(scenario, system, label, e.getKey(), unit,
                                    new ArrayList<>(), new ArrayList<>()));
                            row.values().add(e.getValue()[0]);
                            row.stalls().add(m.stall() == null ? "" : m.stall());
                        }
                        log("  " + describe(m));
                    } catch (Exception e) {
                        recordFailure(scenario, system, label, "error", e);
                        return;
                    }
                }
            }
        }
    }

    /**
     * Before a system's first measurement in a run (with {@code --warmup} above 0), an untimed drain of
     * {@value #WARM_UP_JOBS} jobs at concurrency 8 in its first drain configuration, as an outside harness
     * warms each system: so that no system's first scenario pays for its code's compilation, its process's
     * start or its server-side caches. False when it failed, which is recorded as the system's error.
     */
    private boolean warmUpSystem(String system, Sut described) {
        if (o.warmups() == 0 || !warmSystems.add(system)) {
            return true;
        }
        String config = described.configs("drain").getFirst();
        Point point = new Point(8, 1, config + " c=8");
        log(String.format(Locale.ROOT, "%s drain [%s] system warm-up, %,d jobs (not counted)", system, point.label(),
                WARM_UP_JOBS));
        try {
            log("  " + describe(measure(system, "drain", config, point, WARM_UP_JOBS)));
            return true;
        } catch (Exception e) {
            recordFailure("drain", system, point.label(), "error in the system's warm-up", e);
            return false;
        }
    }

    /**
     * Untimed measurements of a configuration before its timed ones, in the scenarios whose rate a fresh
     * process's first seconds would lower (a fresh JVM's first two drains run at about half speed, on a warm
     * server too); the same for every system. False when one failed, which is recorded as the
     * configuration's error.
     */
    private boolean warmUp(String system, String scenario, String config, Point point) {
        if (!WARMED_UP.contains(scenario)) {
            return true;
        }
        for (int i = 0; i < o.warmups(); i++) {
            log(String.format(Locale.ROOT, "%s %s [%s] warm-up %d/%d (not counted)", system, scenario, point.label(),
                    i + 1, o.warmups()));
            try {
                log("  " + describe(measure(system, scenario, config, point, o.jobs())));
            } catch (Exception e) {
                recordFailure(scenario, system, point.label(), "error in warm-up", e);
                return false;
            }
        }
        return true;
    }

    /** A failed measurement becomes its point's row, so that the report shows it in place of a number. */
    private void recordFailure(String scenario, String system, String label, String what, Exception e) {
        log("  FAILED: " + e);
        e.printStackTrace();
        rows.putIfAbsent(scenario + "|" + system + "|" + label + "|error", new Row(scenario, system, label, what + ": "
                + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""),
                "", new ArrayList<>(), new ArrayList<>()));
    }

    private static String describe(Measurement m) {
        StringBuilder sb = new StringBuilder();
        m.metrics().forEach((k, v) -> sb.append(k).append('=').append(String.format(Locale.ROOT, "%,.2f", v[0])).append("  "));
        if (m.stall() != null) {
            sb.append("⚠ ").append(m.stall());
        }
        return sb.toString().trim();
    }

    private static String unitOf(String metric) {
        if (metric.endsWith("ms")) {
            return "ms";
        } else if (metric.endsWith("kB")) {
            return "kB";
        } else if (metric.endsWith("bytes/job")) {
            return "bytes";
        } else if (metric.endsWith("µs/job")) {
            return "µs";
        } else if (metric.startsWith("backlog") || metric.endsWith("jobs")) {
            return "jobs";
        }
        return "jobs/s";
    }

    /**
     * Opens a fresh database, the system on it, runs one measurement, and drops the database; {@code jobs}
     * is N of bulk, drain and scale-out.
     */
    private Measurement measure(String system, String scenario, String config, Point point, int jobs) throws Exception {
        int concurrency = point.concurrency();
        String db = "bench_" + system.replace('-', '_') + "_" + (++dbCounter);
        try (Connection c = DriverManager.getConnection(adminUrl)) {
            Db.execute(c, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            Db.execute(c, "CREATE DATABASE " + db);
            Db.execute(c, "ALTER DATABASE " + db + " SET synchronous_commit = " + o.synchronousCommit());
        }
        String url = Db.withDatabase(adminUrl, db);
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url);
        hc.setMaximumPoolSize(Math.max(16, concurrency + 8));
        hc.setPoolName("bench-" + system);
        try (HikariDataSource ds = new HikariDataSource(hc); Sut sut = newSut(system)) {
            sut.open(url, ds, config);
            if (scenario.equals("drain") || scenario.equals("txhandler")) {
                return Drain.run(sut, ds, concurrency, jobs, drainLimit());
            }
            return Measurement.of(switch (scenario) {
                case "bulk" -> Enqueue.bulk(sut, ds, jobs);
                case "single" -> Enqueue.single(sut, o.producers(), o.singleDuration());
                case "pickup" -> Pickup.run(sut, o.pickupJobs());
                case "steady" -> RateLoad.steady(sut, concurrency, drainRate(system, config, concurrency), o.steadyDuration(), ds);
                case "soak" -> RateLoad.soak(sut, concurrency, drainRate(system, config, concurrency), o.soakDuration(), ds);
                case "scaleout" -> ScaleOut.run((DocketSut) sut, ds, url, point.processes(), concurrency, jobs, drainLimit());
                case "fairness" -> TenantFairness.run(((DocketSut) sut).docket(), 2 * jobs, config);
                case "sequences" -> SequenceDrain.run(((DocketSut) sut).docket(), jobs, config);
                case "signals" -> SignalDrain.run(((DocketSut) sut).docket(), ds, jobs, config);
                case "ratelimit" -> RateLimitLoad.run(ds, jobs, concurrency, config);
                default -> throw new IllegalArgumentException("unknown scenario " + scenario + "; known: " + BenchOptions.ALL_SCENARIOS);
            });
        } finally {
            try (Connection c = DriverManager.getConnection(adminUrl)) {
                Db.execute(c, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            }
        }
    }

    static final int CHUNK = 1000;

    /** The scenarios measured after {@code --warmup} untimed runs: the throughput and latency ones. */
    static final Set<String> WARMED_UP = Set.of("bulk", "single", "drain", "txhandler", "pickup");

    /** The drain that warms each system once per run, as large as the outside harness's. */
    static final int WARM_UP_JOBS = 5_000;

    private Duration drainLimit() {
        return Duration.ofMinutes(o.quick() ? 2 : 15);
    }

    /** The median drain rate measured for this system and config in this run, at concurrency c. */
    private double drainRate(String system, String config, int c) {
        Row r = rows.get("drain|" + system + "|" + config + " c=" + c + "|drain jobs/s");
        return r == null ? Double.NaN : r.median();
    }

    /** How many measurements this run began, warm-ups included. */
    int measurementsBegun() {
        return dbCounter;
    }

    /** How many Node processes this run started, over all Node systems. */
    int nodeProcessesStarted() {
        return nodeDrivers.values().stream().mapToInt(NodeDriver::processesStarted).sum();
    }

    static void log(String s) {
        System.err.println("[bench] " + s);
    }
}
