package dev.docket.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import dev.docket.PermanentJobFailure;
import dev.docket.RetryPolicy;
import dev.docket.Worker;
import dev.docket.internal.db.DatabaseUrl;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Docket end to end on one machine: starts PostgreSQL (embedded, or {@code --database-url}),
 * migrates, enqueues a mix of jobs (fast, slow, flaky, doomed, scheduled; several tenants) and works
 * them with one worker, printing progress every second until every job has completed or died.
 *
 * <pre>bin/demo [--jobs 20000] [--concurrency 32] [--database-url postgres://user:pass@host:5432/db]</pre>
 *
 * @param jobs        how many jobs to enqueue
 * @param concurrency the worker's concurrency
 * @param databaseUrl an external database, or null for the embedded one
 */
public record Demo(int jobs, int concurrency, String databaseUrl) {

    record Thumbnail(String imageId, int width) {
    }

    record Email(String to, String template) {
    }

    record CrmSync(String accountId, int failures) {
    }

    record Charge(String orderId, long cents, boolean cardValid) {
    }

    public static void main(String[] args) throws Exception {
        int jobs = 20_000;
        int concurrency = 32;
        String url = System.getenv("DOCKET_DATABASE_URL");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jobs" -> jobs = positive(args, ++i);
                case "--concurrency" -> concurrency = positive(args, ++i);
                case "--database-url" -> url = value(args, ++i);
                case "-h", "--help" -> {
                    System.out.println("usage: bin/demo [--jobs N (default 20000)] [--concurrency N (default 32)] "
                            + "[--database-url postgres://user:pass@host:port/db]");
                    return;
                }
                default -> fail("unknown option " + args[i] + " (try --help)");
            }
        }
        new Demo(jobs, concurrency, url).run();
    }

    private void run() throws Exception {
        EmbeddedPostgres embedded = null;
        String jdbcUrl;
        String user = null;
        String password = null;
        if (databaseUrl == null || databaseUrl.isBlank()) {
            System.out.println("Starting embedded PostgreSQL ...");
            embedded = EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start();
            jdbcUrl = embedded.getJdbcUrl("postgres", "postgres");
            user = "postgres";
        } else {
            // The parser the docket command uses (internal to Docket: not part of what this example shows).
            DatabaseUrl url;
            try {
                url = DatabaseUrl.parse(databaseUrl);
            } catch (IllegalArgumentException e) {
                throw fail("--database-url is not a usable PostgreSQL URL: " + e.getMessage());
            }
            jdbcUrl = url.jdbcUrl();
            user = url.user();
            password = url.password();
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(12);
        config.setPoolName("docket-demo");
        try (HikariDataSource dataSource = new HikariDataSource(config);
             Docket docket = Docket.builder(dataSource)
                     .schema("docket_demo")
                     .retryPolicy("sync_crm", new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(2), 0.2))
                     .build()) {
            try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS docket_demo CASCADE");
                st.execute("CREATE TABLE IF NOT EXISTS demo_orders (id bigserial PRIMARY KEY, cents bigint NOT NULL)");
            }
            docket.migrate();
            System.out.printf(Locale.ROOT, "Schema docket_demo at version %d.%n", docket.schemaVersion());
            transactionalEnqueue(docket, dataSource);

            long started = System.nanoTime();
            try (Worker worker = startWorker(docket)) {
                enqueueMix(docket);
                System.out.printf(Locale.ROOT, "Enqueued %,d jobs; worker %s runs them with concurrency %d.%n",
                        jobs, worker.workerId(), concurrency);
                watch(dataSource, started);
            }
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    /** The point of a queue in PostgreSQL: the job commits, or rolls back, with the business row. */
    private void transactionalEnqueue(Docket docket, HikariDataSource dataSource) throws SQLException {
        long committed;
        long rolledBack;
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, 4_200);
            committed = docket.enqueue(c, "charge_card", new Charge("order-committed", 4_200, true), JobOptions.defaults());
            c.commit();
            insertOrder(c, 999);
            rolledBack = docket.enqueue(c, "charge_card", new Charge("order-rolled-back", 999, true), JobOptions.defaults());
            c.rollback();
        }
        System.out.printf(Locale.ROOT, "Transactional enqueue: committed order -> job %d %s; rolled-back order -> job %d %s.%n",
                committed, docket.job(committed).isPresent() ? "exists" : "MISSING",
                rolledBack, docket.job(rolledBack).isPresent() ? "EXISTS (bug)" : "never existed");
    }

    private static void insertOrder(Connection c, long cents) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO demo_orders (cents) VALUES (?)")) {
            ps.setLong(1, cents);
            ps.executeUpdate();
        }
    }

    private Worker startWorker(Docket docket) {
        return docket.worker()
                .queue("default", concurrency)
                .queue("email", Math.max(1, concurrency / 2))
                .maintenanceInterval(Duration.ofMillis(200))
                .handler("thumbnail", Thumbnail.class, (t, ctx) -> {
                    if (t.width() <= 0) {
                        throw new PermanentJobFailure("width must be positive");
                    }
                })
                .handler("send_email", Email.class, (e, ctx) -> Thread.sleep(ThreadLocalRandom.current().nextInt(5, 40)))
                .handler("sync_crm", CrmSync.class, (s, ctx) -> {
                    if (ctx.attempt() <= s.failures()) {
                        throw new IllegalStateException("CRM answered 503 (attempt " + ctx.attempt() + ")");
                    }
                })
                .handler("charge_card", Charge.class, (charge, ctx) -> {
                    if (!charge.cardValid()) {
                        throw new PermanentJobFailure("card declined: expired");
                    }
                })
                .start();
    }

    private void enqueueMix(Docket docket) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String[] tenants = {"acme", "globex", "initech", "umbrella"};
        List<NewJob> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            int roll = random.nextInt(100);
            JobOptions.Builder options = JobOptions.builder().tenant(tenants[i % tenants.length]);
            NewJob job;
            if (roll < 55) {
                job = NewJob.of("thumbnail", new Thumbnail("img-" + i, roll == 0 ? 0 : 320), options.build());
            } else if (roll < 75) {
                job = NewJob.of("send_email", new Email("user" + i + "@example.com", "welcome"), options.queue("email").build());
            } else if (roll < 90) {
                job = NewJob.of("sync_crm", new CrmSync("acct-" + i, roll % 3), options.build());
            } else if (roll < 97) {
                job = NewJob.of("charge_card", new Charge("order-" + i, 100 + roll, roll != 96), options.build());
            } else {
                job = NewJob.of("send_email", new Email("later" + i + "@example.com", "reminder"),
                        options.queue("email").delay(Duration.ofSeconds(3)).build());
            }
            batch.add(job);
            if (batch.size() == 1_000) {
                docket.enqueueAll(batch);
                batch.clear();
            }
        }
        docket.enqueueAll(batch);
    }

    private void watch(HikariDataSource dataSource, long started) throws Exception {
        long lastDone = 0;
        long lastTick = System.nanoTime();
        System.out.println("  time  scheduled    ready  running  completed  retried     dead    jobs/s");
        while (true) {
            Thread.sleep(1_000);
            long[] s = snapshot(dataSource);
            long done = s[3] + s[5];
            long now = System.nanoTime();
            double rate = (done - lastDone) / ((now - lastTick) / 1e9);
            System.out.printf(Locale.ROOT, "%5.0fs %10d %8d %8d %10d %8d %8d %9.0f%n",
                    (now - started) / 1e9, s[0], s[1], s[2], s[3], s[4], s[5], rate);
            lastDone = done;
            lastTick = now;
            // One more than the mix: the committed order's job from the transactional enqueue.
            if (s[0] + s[1] + s[2] == 0 && done >= jobs + 1) {
                double seconds = (now - started) / 1e9;
                System.out.printf(Locale.ROOT, "All %,d jobs finished in %.1f s (%.0f jobs/s end to end): %,d completed, "
                        + "%,d dead (permanent failures, by design).%n", done, seconds, done / seconds, s[3], s[5]);
                return;
            }
        }
    }

    /** scheduled, ready, running, completed, jobs that needed a retry, dead. */
    private static long[] snapshot(HikariDataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("""
                     SELECT count(*) FILTER (WHERE state = 'scheduled'),
                            count(*) FILTER (WHERE state = 'ready'),
                            count(*) FILTER (WHERE state = 'running'),
                            (SELECT count(*) FROM docket_demo.job_history),
                            (SELECT count(*) FROM docket_demo.job_history WHERE jsonb_array_length(errors) > 0),
                            (SELECT count(*) FROM docket_demo.dead_jobs)
                       FROM docket_demo.jobs""")) {
            rs.next();
            long[] out = new long[6];
            for (int i = 0; i < 6; i++) {
                out[i] = rs.getLong(i + 1);
            }
            return out;
        }
    }

    private static int positive(String[] args, int i) {
        String v = value(args, i);
        try {
            int n = Integer.parseInt(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw fail(args[i - 1] + " needs a positive whole number, was '" + v + "'");
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw fail(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static RuntimeException fail(String message) {
        System.err.println("demo: " + message);
        System.exit(2);
        return new IllegalStateException(message);
    }
}
