package dev.docket.bench;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;

/**
 * The canonical raw-SQL pattern, no library: a jobs table with a partial index on ready rows; each
 * worker thread with its own connection claims {@code LIMIT B ... FOR NO KEY UPDATE SKIP LOCKED} (one
 * committed UPDATE), runs the handlers, then {@code DELETE ... WHERE id = ANY(?)} (a second commit).
 * An empty claim sleeps 10 ms (there is no LISTEN in the pattern).
 */
final class RawSut implements Sut {

    private static final String CLAIM = """
            UPDATE raw_jobs SET state = 1, attempts = attempts + 1, locked_at = now()
            WHERE id = ANY (ARRAY(
              SELECT id FROM raw_jobs WHERE state = 0 AND run_at <= now()
              ORDER BY run_at, id LIMIT ? FOR NO KEY UPDATE SKIP LOCKED))
            RETURNING id, payload""";

    private String url;
    private int batch;
    private final ThreadLocal<Connection> producer = new ThreadLocal<>();
    private final List<Connection> producers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean();

    @Override
    public String name() {
        return "raw";
    }

    @Override
    public List<String> configs(String scenario) {
        if (DOCKET_ONLY.contains(scenario)) {
            return List.of();
        }
        return switch (scenario) {
            case "drain", "steady", "soak" -> List.of("B=10", "B=100");
            default -> List.of("B=10");
        };
    }

    @Override
    public LiveJobs liveJobs() {
        return new LiveJobs("SELECT count(*) FROM raw_jobs", List.of("raw_jobs", "raw_jobs_ready"));
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) throws Exception {
        this.url = jdbcUrl;
        this.batch = Integer.parseInt(config.substring(2));
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("""
                    CREATE TABLE raw_jobs (
                      id bigserial PRIMARY KEY,
                      kind text NOT NULL,
                      payload jsonb NOT NULL,
                      state smallint NOT NULL DEFAULT 0,
                      attempts int NOT NULL DEFAULT 0,
                      run_at timestamptz NOT NULL DEFAULT now(),
                      locked_at timestamptz)""");
            s.execute("CREATE INDEX raw_jobs_ready ON raw_jobs (run_at, id) WHERE state = 0");
        }
    }

    private Connection producerConnection() throws Exception {
        Connection c = producer.get();
        if (c == null) {
            c = DriverManager.getConnection(url);
            synchronized (producers) {
                producers.add(c);
            }
            producer.set(c);
        }
        return c;
    }

    @Override
    public void enqueueBatch(long from, int count) throws Exception {
        Long[] seqs = new Long[count];
        for (int i = 0; i < count; i++) {
            seqs[i] = from + i;
        }
        Connection c = producerConnection();
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO raw_jobs (kind, payload) SELECT 'noop', jsonb_build_object('seq', s) FROM unnest(?::bigint[]) s")) {
            ps.setArray(1, c.createArrayOf("bigint", seqs));
            ps.executeUpdate();
        }
    }

    @Override
    public void enqueueOne(long seq) throws Exception {
        Connection c = producerConnection();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO raw_jobs (kind, payload) VALUES ('noop', ?::jsonb)")) {
            ps.setString(1, "{\"seq\":" + seq + "}");
            ps.executeUpdate();
        }
    }

    @Override
    public void startWorkers(int concurrency, Starts onStart) {
        running.set(true);
        for (int i = 0; i < concurrency; i++) {
            Thread t = new Thread(() -> work(onStart), "raw-worker-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void work(Starts onStart) {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement claim = c.prepareStatement(CLAIM);
             PreparedStatement delete = c.prepareStatement("DELETE FROM raw_jobs WHERE id = ANY (?)")) {
            claim.setInt(1, batch);
            while (running.get()) {
                List<Long> ids = new ArrayList<>(batch);
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                        String payload = rs.getString(2);
                        onStart.started(Long.parseLong(payload.replaceAll("\\D", "")), System.nanoTime());
                    }
                }
                if (ids.isEmpty()) {
                    Thread.sleep(10);
                    continue;
                }
                Array array = c.createArrayOf("bigint", ids.toArray());
                delete.setArray(1, array);
                delete.executeUpdate();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (running.get()) {
                e.printStackTrace();
            }
        }
    }

    @Override
    public void stopWorkers() throws Exception {
        running.set(false);
        for (Thread t : threads) {
            t.join(10_000);
        }
        threads.clear();
    }

    @Override
    public void close() throws Exception {
        stopWorkers();
        synchronized (producers) {
            for (Connection c : producers) {
                c.close();
            }
            producers.clear();
        }
    }
}
