package dev.docket.bench;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A queue written for Node.js, measured through its {@link NodeDriver}: the run's one Node process for
 * that queue, which opens the queue on each measurement's database and closes it afterwards. Live counts
 * are read here with SQL.
 */
final class NodeSut implements Sut {

    private final String name;
    private final String config;
    private final LiveJobs liveJobs;
    private final NodeDriver driver;
    private boolean opened;

    /**
     * @param name         the system's name, also its npm package and its driver script {@code node/<name>.mjs}
     * @param config       the one configuration measured: the driver's settings in a few words
     * @param liveCountSql a {@code count(*)} of the jobs not yet completed
     * @param relation     the table that holds live jobs
     */
    private NodeSut(String name, String config, String liveCountSql, String relation, NodeDriver driver) {
        this.name = name;
        this.config = config;
        this.liveJobs = new LiveJobs(liveCountSql, List.of(relation));
        this.driver = driver;
    }

    /**
     * graphile-worker 0.18 at the settings of its performance page: a local queue of 500 jobs, completions and
     * failures batched with delay 0, a pool of concurrency + 1 connections. Completed jobs are deleted, so the
     * live count is the rows of its jobs table.
     */
    static NodeSut graphileWorker(NodeDriver driver) {
        return new NodeSut("graphile-worker", "local queue 500", "SELECT count(*) FROM graphile_worker._private_jobs",
                "graphile_worker._private_jobs", driver);
    }

    /**
     * pg-boss 12: workers fetch batches of 100, fetch again at once while batches come back full, and are
     * woken by LISTEN/NOTIFY. Completed jobs stay in {@code pgboss.job} (state {@code completed}), so the live
     * count is the jobs in a state before it.
     */
    static NodeSut pgBoss(NodeDriver driver) {
        return new NodeSut("pg-boss", "batch 100", "SELECT count(*) FROM pgboss.job WHERE state < 'completed'",
                "pgboss.job", driver);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<String> configs(String scenario) {
        return DOCKET_ONLY.contains(scenario) ? List.of() : List.of(config);
    }

    @Override
    public LiveJobs liveJobs() {
        return liveJobs;
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) throws Exception {
        opened = true;
        driver.call("open", Map.of("db", connection(jdbcUrl), "config", config));
    }

    /** The fields of a {@code jdbc:postgresql://host:port/db?user=..&password=..} URL, as the driver's pg pool wants them. */
    static Map<String, Object> connection(String jdbcUrl) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        Map<String, Object> db = new LinkedHashMap<>();
        db.put("host", uri.getHost());
        db.put("port", uri.getPort() < 0 ? 5432 : uri.getPort());
        db.put("database", uri.getPath().substring(1));
        // The raw query: a decoded one would split a password containing an encoded '&'.
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                String[] kv = pair.split("=", 2);
                if (kv.length == 2 && (kv[0].equals("user") || kv[0].equals("password"))) {
                    db.put(kv[0], URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
                }
            }
        }
        return db;
    }

    @Override
    public void enqueueBatch(long from, int count) throws Exception {
        driver.call("enqueueBatch", Map.of("from", from, "count", count));
    }

    @Override
    public void enqueueOne(long seq) throws Exception {
        driver.call("enqueueOne", Map.of("seq", seq));
    }

    @Override
    public void startWorkers(int concurrency, Starts onStart) throws Exception {
        driver.reportStartsTo(onStart);
        driver.call("start", Map.of("concurrency", concurrency));
    }

    @Override
    public void stopWorkers() throws Exception {
        driver.call("stop", Map.of());
        driver.reportStartsTo(Starts.NONE);
    }

    /** Closes the queue's pools and instances on this measurement's database; the Node process stays. */
    @Override
    public void close() throws Exception {
        if (opened) {
            opened = false;
            driver.call("close", Map.of());
            driver.reportStartsTo(Starts.NONE);
        }
    }
}
