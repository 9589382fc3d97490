package dev.docket.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * The benchmark: Docket side by side with db-scheduler, JobRunr and a raw-SQL SKIP LOCKED loop, each on
 * a fresh database of one PostgreSQL, in the same run. {@code --help} lists the options.
 */
public final class Bench {

    /** One measurement: the median over reps is taken per (system, scenario, config, metric). */
    record Row(String scenario, String system, String config, String metric, String unit, List<Double> values) {
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

    private final BenchOptions o;
    private final Map<String, Row> rows = new LinkedHashMap<>();
    private final Map<String, String> settings = new LinkedHashMap<>();
    private String adminUrl;
    private int dbCounter;

    Bench(BenchOptions o) {
        this.o = o;
    }

    public static void main(String[] args) throws Exception {
        BenchOptions options = BenchOptions.parse(args);
        new Bench(options).run();
        System.exit(0);
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
            for (String system : o.systems()) {
                for (String scenario : o.scenarios()) {
                    runScenario(system, scenario);
                }
            }
            new Report(List.copyOf(rows.values()), settings, o).write();
            return List.copyOf(rows.values());
        } finally {
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
        settings.put("jobs", String.valueOf(o.jobs()));
        settings.put("reps", String.valueOf(o.reps()));
        settings.put("mode", o.quick() ? "short" : "full");
        settings.put("date", Instant.now().toString());
    }

    static Sut newSut(String system) {
        return switch (system) {
            case "docket" -> new DocketSut();
            case "raw" -> new RawSut();
            case "db-scheduler" -> new DbSchedulerSut();
            case "jobrunr" -> new JobRunrSut();
            default -> throw new IllegalArgumentException("unknown system " + system + "; known: " + BenchOptions.ALL_SYSTEMS);
        };
    }

    private void runScenario(String system, String scenario) {
        List<String> configs = newSut(system).configs(scenario);
        List<Integer> concurrencies = scenario.equals("drain") ? o.concurrencies() : List.of(8);
        for (String config : configs) {
            for (int c : concurrencies) {
                String label = scenario.equals("drain") || scenario.equals("steady") || scenario.equals("soak")
                        ? config + " c=" + c : config;
                for (int rep = 0; rep < o.reps(); rep++) {
                    log(String.format(Locale.ROOT, "%s %s [%s] rep %d/%d", system, scenario, label, rep + 1, o.reps()));
                    try {
                        Map<String, double[]> m = measure(system, scenario, config, c);
                        for (var e : m.entrySet()) {
                            String key = scenario + "|" + system + "|" + label + "|" + e.getKey();
                            String unit = unitOf(e.getKey());
                            rows.computeIfAbsent(key, k -> new Row(scenario, system, label, e.getKey(), unit, new ArrayList<>()))
                                    .values().add(e.getValue()[0]);
                        }
                        log("  " + describe(m));
                    } catch (Exception e) {
                        log("  FAILED: " + e);
                        e.printStackTrace();
                        String key = scenario + "|" + system + "|" + label + "|error";
                        rows.putIfAbsent(key, new Row(scenario, system, label, "error: " + e.getClass().getSimpleName()
                                + ": " + String.valueOf(e.getMessage()).lines().findFirst().orElse(""), "", new ArrayList<>()));
                        return;
                    }
                }
            }
        }
    }

    private static String describe(Map<String, double[]> m) {
        StringBuilder sb = new StringBuilder();
        m.forEach((k, v) -> sb.append(k).append('=').append(String.format(Locale.ROOT, "%,.2f", v[0])).append("  "));
        return sb.toString().trim();
    }

    private static String unitOf(String metric) {
        if (metric.endsWith("ms")) {
            return "ms";
        } else if (metric.endsWith("kB")) {
            return "kB";
        } else if (metric.startsWith("backlog") || metric.endsWith("jobs")) {
            return "jobs";
        }
        return "jobs/s";
    }

    /** Opens a fresh database, the system on it, runs one measurement, and drops the database. */
    private Map<String, double[]> measure(String system, String scenario, String config, int concurrency) throws Exception {
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
            return switch (scenario) {
                case "bulk" -> bulk(sut);
                case "single" -> single(sut);
                case "drain" -> drain(sut, concurrency);
                case "pickup" -> pickup(sut);
                case "steady" -> steady(sut, system, config, concurrency, ds);
                case "soak" -> soak(sut, system, config, concurrency, ds);
                case "fairness" -> TenantFairness.run(((DocketSut) sut).docket(), 2 * o.jobs(), config);
                default -> throw new IllegalArgumentException("unknown scenario " + scenario + "; known: " + BenchOptions.ALL_SCENARIOS);
            };
        } finally {
            try (Connection c = DriverManager.getConnection(adminUrl)) {
                Db.execute(c, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            }
        }
    }

    static final int CHUNK = 1000;

    private void enqueueAll(Sut sut, int n) throws Exception {
        for (int i = 0; i < n; i += CHUNK) {
            sut.enqueueBatch(i, Math.min(CHUNK, n - i));
        }
    }

    /** (1) bulk enqueue of N jobs in chunks of 1,000, one transaction per chunk. */
    private Map<String, double[]> bulk(Sut sut) throws Exception {
        sut.enqueueBatch(10_000_000, 10); // warm-up
        long t0 = System.nanoTime();
        enqueueAll(sut, o.jobs());
        double s = (System.nanoTime() - t0) / 1e9;
        return Map.of("enqueue jobs/s", new double[]{o.jobs() / s});
    }

    /** (2) single-job enqueue, one transaction each, from a few producer threads for a fixed time. */
    private Map<String, double[]> single(Sut sut) throws Exception {
        AtomicLong seq = new AtomicLong();
        long deadline = System.nanoTime() + o.singleDuration().toNanos();
        List<Thread> threads = new ArrayList<>();
        List<Exception> errors = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int p = 0; p < o.producers(); p++) {
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < deadline) {
                        sut.enqueueOne(seq.getAndIncrement());
                    }
                } catch (Exception e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        return Map.of("enqueue jobs/s", new double[]{seq.get() / s});
    }

    /** (3) drain N pre-enqueued no-op jobs: jobs/s until the live table is empty. */
    private Map<String, double[]> drain(Sut sut, int concurrency) throws Exception {
        enqueueAll(sut, o.jobs());
        long t0 = System.nanoTime();
        sut.startWorkers(concurrency, seq -> {
        });
        long limit = t0 + Duration.ofMinutes(o.quick() ? 2 : 15).toNanos();
        long left;
        while ((left = sut.liveCount()) > 0 && System.nanoTime() < limit) {
            Thread.sleep(20);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        sut.stopWorkers();
        if (left > 0) {
            throw new IllegalStateException(left + " jobs left after " + (int) s + " s");
        }
        return Map.of("drain jobs/s", new double[]{o.jobs() / s});
    }

    /** (5) idle pickup: single jobs spaced 20 ms apart, enqueue commit to handler start. */
    private Map<String, double[]> pickup(Sut sut) throws Exception {
        int n = o.pickupJobs();
        AtomicLongArray started = new AtomicLongArray(n);
        long[] committed = new long[n];
        sut.startWorkers(8, seq -> {
            if (seq >= 0 && seq < n) {
                started.compareAndSet((int) seq, 0, System.nanoTime());
            }
        });
        Thread.sleep(1500); // listeners up, first polls done
        for (int i = 0; i < n; i++) {
            sut.enqueueOne(i);
            committed[i] = System.nanoTime();
            Thread.sleep(20);
        }
        long limit = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < limit && !allSet(started)) {
            Thread.sleep(20);
        }
        sut.stopWorkers();
        Histogram h = new Histogram(3_600_000_000L, 3);
        int missing = 0;
        for (int i = 0; i < n; i++) {
            if (started.get(i) == 0) {
                missing++;
                continue;
            }
            // The handler can start before the enqueuing client has received its commit acknowledgement.
            h.recordValue(Math.max(0, (started.get(i) - committed[i]) / 1000));
        }
        if (missing > 0) {
            throw new IllegalStateException(missing + " of " + n + " jobs did not start within 30 s");
        }
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("pickup p50 ms", new double[]{h.getValueAtPercentile(50) / 1000.0});
        m.put("pickup p99 ms", new double[]{h.getValueAtPercentile(99) / 1000.0});
        m.put("pickup max ms", new double[]{h.getMaxValue() / 1000.0});
        return m;
    }

    private static boolean allSet(AtomicLongArray a) {
        for (int i = 0; i < a.length(); i++) {
            if (a.get(i) == 0) {
                return false;
            }
        }
        return true;
    }

    /** The median drain rate measured for this system and config in this run, at concurrency c. */
    private double drainRate(String system, String config, int c) {
        Row r = rows.get("drain|" + system + "|" + config + " c=" + c + "|drain jobs/s");
        return r == null ? Double.NaN : r.median();
    }

    /** (4) steady state: producers at 70% of the system's drain rate; completed rate and backlog. */
    private Map<String, double[]> steady(Sut sut, String system, String config, int c, javax.sql.DataSource ds)
            throws Exception {
        double drain = drainRate(system, config, c);
        double rate = Double.isNaN(drain) ? 1000 : 0.7 * drain;
        Produced p = produceAtRate(sut, c, rate, o.steadyDuration(), null);
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("offered jobs/s", new double[]{p.enqueued / p.seconds});
        m.put("completed jobs/s", new double[]{(p.enqueued - p.backlogEnd) / p.seconds});
        m.put("backlog mid", new double[]{p.backlogMid});
        m.put("backlog end", new double[]{p.backlogEnd});
        return m;
    }

    /** (6) soak: half the drain rate for a long time; start-to-claim p99 and sizes at start and end. */
    private Map<String, double[]> soak(Sut sut, String system, String config, int c, javax.sql.DataSource ds)
            throws Exception {
        double drain = drainRate(system, config, c);
        double rate = Double.isNaN(drain) ? 1000 : 0.5 * drain;
        Produced p = produceAtRate(sut, c, rate, o.soakDuration(), () -> relationSize(ds, sut));
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("offered jobs/s", new double[]{p.enqueued / p.seconds});
        m.put("start p99 ms (first 10%)", new double[]{p.first.getValueAtPercentile(99) / 1000.0});
        m.put("start p99 ms (last 10%)", new double[]{p.last.getValueAtPercentile(99) / 1000.0});
        m.put("size kB (start)", new double[]{p.sizeStart});
        m.put("size kB (end)", new double[]{p.sizeEnd});
        m.put("backlog end", new double[]{p.backlogEnd});
        return m;
    }

    private static double relationSize(javax.sql.DataSource ds, Sut sut) {
        try {
            long total = 0;
            for (String r : sut.relations()) {
                total += Db.count(ds, "SELECT pg_total_relation_size('" + r + "')");
            }
            return total / 1024.0;
        } catch (Exception e) {
            return Double.NaN;
        }
    }

    record Produced(long enqueued, double seconds, long backlogMid, long backlogEnd, Histogram first, Histogram last,
                    double sizeStart, double sizeEnd) {
    }

    /** Enqueues at {@code rate} jobs/s in 10 ms ticks while workers run; measures enqueue-to-start latency. */
    private Produced produceAtRate(Sut sut, int concurrency, double rate, Duration duration, Supplier<Double> size)
            throws Exception {
        long ticks = duration.toMillis() / 10;
        int cap = (int) Math.min(50_000_000, Math.ceil(rate * duration.toMillis() / 1000.0) + ticks + 10);
        long[] committed = new long[cap];
        AtomicLongArray started = new AtomicLongArray(cap);
        sut.startWorkers(concurrency, seq -> {
            if (seq >= 0 && seq < cap) {
                started.compareAndSet((int) seq, 0, System.nanoTime());
            }
        });
        Thread.sleep(500);
        long t0 = System.nanoTime();
        long seq = 0;
        long backlogMid = 0;
        double sizeStart = Double.NaN;
        for (long tick = 1; tick <= ticks; tick++) {
            long target = Math.min(cap, (long) (rate * tick / 100.0));
            if (target > seq) {
                int count = (int) (target - seq);
                sut.enqueueBatch(seq, count);
                long now = System.nanoTime();
                for (long i = seq; i < target; i++) {
                    committed[(int) i] = now;
                }
                seq = target;
            }
            if (tick == ticks / 2) {
                backlogMid = sut.liveCount();
            }
            if (size != null && tick == Math.max(1, ticks / 10)) {
                sizeStart = size.get();
            }
            long sleep = t0 + tick * 10_000_000L - System.nanoTime();
            if (sleep > 0) {
                Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long backlogEnd = sut.liveCount();
        double sizeEnd = size == null ? Double.NaN : size.get();
        sut.stopWorkers();
        Histogram first = new Histogram(3_600_000_000L, 3);
        Histogram last = new Histogram(3_600_000_000L, 3);
        long tenth = Math.max(1, seq / 10);
        for (int i = 0; i < seq; i++) {
            long s = started.get(i);
            if (s == 0) {
                continue;
            }
            long us = Math.max(0, (s - committed[i]) / 1000);
            if (i < tenth) {
                first.recordValue(us);
            } else if (i >= seq - tenth) {
                last.recordValue(us);
            }
        }
        return new Produced(seq, seconds, backlogMid, backlogEnd, first, last, sizeStart, sizeEnd);
    }

    static void log(String s) {
        System.err.println("[bench] " + s);
    }
}
