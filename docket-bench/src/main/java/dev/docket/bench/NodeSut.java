package dev.docket.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A queue written for Node.js, measured through a driver script ({@code node/<name>.mjs}) in a Node
 * process of its own that speaks {@code peer-protocol.mjs}: this class sends each call as a JSON line and
 * waits for its answer; handler starts come back with the Node process's monotonic clock, which is the
 * clock of {@link System#nanoTime()} on Linux. Live counts are read here with SQL.
 */
final class NodeSut implements Sut {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough for a chunk of 1,000 enqueues on a loaded machine, short enough to end a hung run. */
    private static final long CALL_TIMEOUT_SECONDS = 120;

    private final String name;
    private final String config;
    private final LiveJobs liveJobs;
    private final Map<Long, CompletableFuture<Void>> calls = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile Starts starts = Starts.NONE;
    private Process process;
    private Writer stdin;

    /**
     * @param name         the system's name, also its npm package and its driver script {@code node/<name>.mjs}
     * @param config       the one configuration measured: the driver's settings in a few words
     * @param liveCountSql a {@code count(*)} of the jobs not yet completed
     * @param relation     the table that holds live jobs
     */
    private NodeSut(String name, String config, String liveCountSql, String relation) {
        this.name = name;
        this.config = config;
        this.liveJobs = new LiveJobs(liveCountSql, List.of(relation));
    }

    /**
     * graphile-worker 0.18 with its local queue of 500 jobs and batched completions, as its performance page
     * configures it. Completed jobs are deleted, so the live count is the rows of its jobs table.
     */
    static NodeSut graphileWorker() {
        return new NodeSut("graphile-worker", "local queue 500", "SELECT count(*) FROM graphile_worker._private_jobs",
                "graphile_worker._private_jobs");
    }

    /**
     * pg-boss 12: workers fetch batches of 100, fetch again at once while batches come back full, and are
     * woken by LISTEN/NOTIFY. Completed jobs stay in {@code pgboss.job} (state {@code completed}), so the live
     * count is the jobs in a state before it.
     */
    static NodeSut pgBoss() {
        return new NodeSut("pg-boss", "batch 100", "SELECT count(*) FROM pgboss.job WHERE state < 'completed'",
                "pgboss.job");
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
    public boolean runsInThisJvm() {
        return false;
    }

    @Override
    public LiveJobs liveJobs() {
        return liveJobs;
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) throws Exception {
        process = NodeRuntime.start(name);
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(this::readAnswers, name() + "-driver");
        reader.setDaemon(true);
        reader.start();
        call("open", Map.of("db", connection(jdbcUrl), "config", config));
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
                    db.put(kv[0], java.net.URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
                }
            }
        }
        return db;
    }

    private void readAnswers() {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] f = line.split(" ", 4);
                if (f[0].equals("S") && f.length == 3) {
                    starts.started(Long.parseLong(f[1]), Long.parseLong(f[2]));
                } else if (f[0].equals("R") && f.length >= 3) {
                    CompletableFuture<Void> call = calls.remove(Long.parseLong(f[1]));
                    if (call != null && f[2].equals("ok")) {
                        call.complete(null);
                    } else if (call != null) {
                        call.completeExceptionally(new IllegalStateException(name() + ": " + (f.length > 3 ? f[3] : line)));
                    }
                } else {
                    Bench.log(name() + " driver: " + line);
                }
            }
        } catch (IOException | RuntimeException e) {
            Bench.log(name() + " driver output unreadable: " + e);
        }
        IllegalStateException gone = new IllegalStateException(name() + " driver process ended");
        calls.values().forEach(c -> c.completeExceptionally(gone));
    }

    private void call(String op, Map<String, Object> fields) throws Exception {
        long id = ids.incrementAndGet();
        CompletableFuture<Void> answer = new CompletableFuture<>();
        calls.put(id, answer);
        Map<String, Object> command = new LinkedHashMap<>(fields);
        command.put("id", id);
        command.put("op", op);
        synchronized (this) {
            stdin.write(JSON.writeValueAsString(command));
            stdin.write('\n');
            stdin.flush();
        }
        if (!process.isAlive()) {
            answer.completeExceptionally(new IllegalStateException(name() + " driver process is not running"));
        }
        try {
            answer.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            calls.remove(id);
        }
    }

    @Override
    public void enqueueBatch(long from, int count) throws Exception {
        call("enqueueBatch", Map.of("from", from, "count", count));
    }

    @Override
    public void enqueueOne(long seq) throws Exception {
        call("enqueueOne", Map.of("seq", seq));
    }

    @Override
    public void startWorkers(int concurrency, Starts onStart) throws Exception {
        starts = onStart;
        call("start", Map.of("concurrency", concurrency, "report", onStart != Starts.NONE));
    }

    @Override
    public void stopWorkers() throws Exception {
        call("stop", Map.of());
        starts = Starts.NONE;
    }

    @Override
    public void close() throws Exception {
        if (process == null) {
            return;
        }
        try {
            if (process.isAlive()) {
                call("close", Map.of());
                stdin.close();
            }
        } finally {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            process = null;
        }
    }
}
