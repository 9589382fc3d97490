package dev.docket.bench;

import java.io.StringReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * The textbook raw-SQL queue, no library, at its best: the yardstick Docket's drain is held to. Table
 * {@code jobs} (identity key, text state, {@code fillfactor = 80}) with one partial index on ready rows;
 * each worker thread has its own auto-commit connection and claims a batch with one committed
 * {@code UPDATE ... WHERE id = ANY(ARRAY(SELECT ... LIMIT B FOR NO KEY UPDATE SKIP LOCKED)) RETURNING},
 * runs it, then deletes it (a second commit); an empty claim sleeps 10 ms (there is no LISTEN in the
 * pattern). Bulk enqueue is one {@code COPY} per chunk, single enqueue one {@code INSERT} per transaction.
 *
 * <p>Configurations ({@link Variant}): {@code B=10}, {@code B=100} (the textbook's) and {@code B=1000},
 * and at B=100 each departure from the textbook: {@code B=100-cte} claims through
 * {@code WITH c AS MATERIALIZED (...)}, {@code B=100-id} orders by {@code (run_at, id)} on an index of
 * both, {@code B=100-done} finishes with {@code UPDATE state = 'done'} instead of {@code DELETE}. The
 * report compares Docket with the best of them at each concurrency.
 */
final class RawSut implements Sut {

    static final String TEXTBOOK = "B=100";

    /** One configuration of the technique, named {@code B=<batch>[-cte][-id][-done]}. */
    record Variant(int batch, boolean cte, boolean idOrder, boolean markDone) {

        private static final Pattern NAME = Pattern.compile("B=(\\d+)(-cte)?(-id)?(-done)?");

        /** The variant a configuration names; bulk's and single's ({@code COPY}, {@code INSERT}) run the textbook's. */
        static Variant of(String config) {
            Matcher m = NAME.matcher(config);
            if (!m.matches()) {
                return of(TEXTBOOK);
            }
            return new Variant(Integer.parseInt(m.group(1)), m.group(2) != null, m.group(3) != null, m.group(4) != null);
        }

        String order() {
            return idOrder ? "run_at, id" : "run_at";
        }

        /** The claim; {@link #bindClaim} sets its parameters. */
        String claimSql() {
            // The textbook form: ARRAY(...) is evaluated once, so the UPDATE cannot re-run the locking
            // subquery per row; the CTE form gets the same guarantee from MATERIALIZED. Only the order is
            // formatted in, from the two fixed choices above.
            if (cte) {
                return """
                        WITH claimed AS MATERIALIZED (
                          SELECT id FROM jobs WHERE state = 'ready' AND run_at <= now()
                          ORDER BY %s LIMIT ? FOR NO KEY UPDATE SKIP LOCKED)
                        UPDATE jobs SET state = 'running', locked_at = now(), locked_by = ?, attempts = attempts + 1
                        FROM claimed WHERE jobs.id = claimed.id
                        RETURNING jobs.id, jobs.payload::text""".formatted(order());
            }
            return """
                    UPDATE jobs SET state = 'running', locked_at = now(), locked_by = ?, attempts = attempts + 1
                    WHERE id = ANY (ARRAY(
                      SELECT id FROM jobs WHERE state = 'ready' AND run_at <= now()
                      ORDER BY %s LIMIT ? FOR NO KEY UPDATE SKIP LOCKED))
                    RETURNING id, payload::text""".formatted(order());
        }

        /** The claim's parameters, in the order its text has them: the CTE form names the batch size first. */
        void bindClaim(PreparedStatement claim, String worker) throws SQLException {
            int lockedBy = cte ? 2 : 1;
            int limit = cte ? 1 : 2;
            claim.setString(lockedBy, worker);
            claim.setInt(limit, batch);
        }

        String finishSql() {
            return markDone
                    ? "UPDATE jobs SET state = 'done' WHERE id = ANY (?)"
                    : "DELETE FROM jobs WHERE id = ANY (?)";
        }
    }

    private String url;
    private Variant variant;
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
            case "drain" -> List.of("B=10", TEXTBOOK, "B=1000", "B=100-cte", "B=100-id", "B=100-done");
            case "steady", "soak" -> List.of("B=10", TEXTBOOK);
            case "bulk" -> List.of("COPY");
            case "single" -> List.of("INSERT");
            default -> List.of(TEXTBOOK);
        };
    }

    @Override
    public LiveJobs liveJobs() {
        // pg_total_relation_size of the table counts its indexes too
        return new LiveJobs(variant.markDone() ? "SELECT count(*) FROM jobs WHERE state <> 'done'"
                : "SELECT count(*) FROM jobs", List.of("jobs"));
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) throws Exception {
        this.url = jdbcUrl;
        this.variant = Variant.of(config);
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("""
                    CREATE TABLE jobs (
                      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                      kind text,
                      payload jsonb,
                      state text DEFAULT 'ready',
                      run_at timestamptz DEFAULT now(),
                      attempts int DEFAULT 0,
                      locked_at timestamptz,
                      locked_by text
                    ) WITH (fillfactor = 80)""");
            s.execute("CREATE INDEX jobs_ready ON jobs (" + variant.order() + ") WHERE state = 'ready'");
        }
    }

    private Connection producerConnection() throws SQLException {
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

    /** One {@code COPY} (one transaction) of jobs {@code {"seq": n}}. */
    @Override
    public void enqueueBatch(long from, int count) throws Exception {
        StringBuilder rows = new StringBuilder(count * 24);
        for (long seq = from; seq < from + count; seq++) {
            rows.append("noop\t{\"seq\": ").append(seq).append("}\n");
        }
        producerConnection().unwrap(PGConnection.class).getCopyAPI()
                .copyIn("COPY jobs (kind, payload) FROM STDIN", new StringReader(rows.toString()));
    }

    @Override
    public void enqueueOne(long seq) throws Exception {
        Connection c = producerConnection();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jobs (kind, payload) VALUES ('noop', ?::jsonb)")) {
            ps.setString(1, "{\"seq\": " + seq + "}");
            ps.executeUpdate();
        }
    }

    /** Connects every worker before any starts, so that no worker's first claims wait on the others' logins. */
    @Override
    public void startWorkers(int concurrency, Starts onStart) throws SQLException {
        List<Connection> connections = new ArrayList<>();
        try {
            for (int i = 0; i < concurrency; i++) {
                connections.add(DriverManager.getConnection(url));
            }
        } catch (SQLException e) {
            for (Connection c : connections) {
                c.close();
            }
            throw e;
        }
        running.set(true);
        for (int i = 0; i < concurrency; i++) {
            Connection c = connections.get(i);
            String name = "raw-worker-" + i;
            Thread t = new Thread(() -> work(c, name, onStart), name);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
    }

    private void work(Connection connection, String name, Starts onStart) {
        try (Connection c = connection;
             PreparedStatement claim = c.prepareStatement(variant.claimSql());
             PreparedStatement finish = c.prepareStatement(variant.finishSql())) {
            variant.bindClaim(claim, name);
            List<Long> ids = new ArrayList<>(variant.batch());
            while (running.get()) {
                ids.clear();
                try (ResultSet rs = claim.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                        onStart.started(seqOf(rs.getString(2)), System.nanoTime());
                    }
                }
                if (ids.isEmpty()) {
                    Thread.sleep(10);
                    continue;
                }
                finish.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                finish.executeUpdate();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (running.get()) {
                e.printStackTrace();
            }
        }
    }

    /** The number in a payload {@code {"seq": n}}, its only digits (a regex per job cost the loop measurably). */
    static long seqOf(String payload) {
        long seq = 0;
        for (int i = 0; i < payload.length(); i++) {
            char ch = payload.charAt(i);
            if (ch >= '0' && ch <= '9') {
                seq = seq * 10 + (ch - '0');
            }
        }
        return seq;
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
