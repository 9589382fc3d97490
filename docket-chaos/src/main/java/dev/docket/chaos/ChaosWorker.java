package dev.docket.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.PeriodicJob;
import dev.docket.Worker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One worker process of the chaos harness. Every execution of a job first records
 * {@code (job_id, attempt, worker)} in the ledger, then "works" for the job's {@code workMs}; a
 * {@code poison} job halts the JVM as a crashing job would, a job with {@code failFirst} fails its
 * first attempt (and is retried), a job slow on this worker's host works {@code slowMs}, and a handler interrupted because its worker lost the lease
 * records that in the {@code interrupts} table; a keyed {@code ordered} job also records its start and end
 * ({@link SequenceChaos}). A {@code counter} job runs in a transactional handler: in
 * its transaction it adds one to the job's row of {@code counters}, then fails (first attempt of a
 * {@code failFirst} job) or works, ignoring interrupts as a handler busy computing would, so that an
 * attempt whose lease was lost meanwhile (a SIGSTOP) reaches its commit and is fenced out there. Each
 * counter must end at exactly 1. Jobs that wait for signals, and timers, run as {@link SignalChaos} says.
 * The maintenance leader enqueues a {@code tick} job
 * every second (cron). The LISTEN connection is its own, unpooled, named
 * {@code chaos-listener-<worker>} so the harness can see it in {@code pg_stat_activity}. The callback of
 * the run's last batch ({@code chaos_batch_done}) records its executions in the ledger too.
 * SIGTERM closes the worker gracefully.
 *
 * <pre>java -cp docket-chaos.jar dev.docket.chaos.ChaosWorker JDBC_URL WORKER LEASE_MS CONCURRENCY NETWORK_TIMEOUT_MS HOST [LISTENER_URL]</pre>
 */
public final class ChaosWorker {

    /** A job's payload: it works {@code workMs}, or {@code slowMs} on worker host {@code slowHost} (0: none). */
    record Work(int n, int workMs, boolean failFirst, int slowHost, int slowMs) {
        static Work of(int n, int workMs, boolean failFirst) {
            return new Work(n, workMs, failFirst, 0, 0);
        }
    }

    /** The pool's connection timeout: how long a borrow waits for a connection (through an outage, then fails). */
    static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(3);
    /** How often an idle producer polls for work when no notification wakes it. */
    static final Duration POLL_INTERVAL = Duration.ofMillis(500);

    private ChaosWorker() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String name = args[1];
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        int concurrency = Integer.parseInt(args[3]);
        Duration networkTimeout = Duration.ofMillis(Long.parseLong(args[4]));
        int host = Integer.parseInt(args[5]);
        String listenerUrl = args.length > 6 ? args[6] : url;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        // A worker's own need, plus one connection for each running transactional handler.
        config.setMaximumPoolSize(2 * concurrency + 6);
        config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
        config.setPoolName("chaos-" + name);
        // Retry the initial connection instead of failing while PostgreSQL restarts.
        config.setInitializationFailTimeout(-1);
        HikariDataSource dataSource = new HikariDataSource(config);
        // The harness stalls a worker for twice its lease and a second.
        Duration lockWait = lease.multipliedBy(3).plusSeconds(1).plus(networkTimeout);
        Docket docket = Docket.builder(dataSource).schema(ChaosHarness.SCHEMA)
                .networkTimeout(networkTimeout)
                .periodic(PeriodicJob.of("tick", "* * * * * *", "tick", Work.of(0, 0, false)))
                .build();
        Worker worker = docket.worker()
                .workerId(name)
                .queue("default", concurrency)
                .lease(lease)
                .heartbeatInterval(lease.dividedBy(5))
                // Leader failover must fit inside a job lease, so that a killed leader's jobs are not late.
                .leaderLease(lease.dividedBy(2))
                .maintenanceInterval(Duration.ofMillis(200))
                .pollInterval(POLL_INTERVAL)
                .shutdownGrace(Duration.ofSeconds(5))
                .listenerDataSource(listener(listenerUrl, name))
                .handler("chaos", Work.class, (work, ctx) -> {
                    recordStart(dataSource, ctx.jobId(), ctx.attempt(), name);
                    if (work.failFirst() && ctx.attempt() == 1) {
                        throw new IllegalStateException("failing the first attempt on purpose");
                    }
                    try {
                        Thread.sleep(work.slowHost() == host ? work.slowMs() : work.workMs());
                    } catch (InterruptedException e) {
                        record(dataSource, "interrupts", ctx.jobId(), ctx.attempt(), name);
                        throw e;
                    }
                })
                .transactionalHandler("counter", Work.class, (work, ctx, tx) -> {
                    record(dataSource, "ledger", ctx.jobId(), ctx.attempt(), name);
                    // A job rescued from a stalled worker waits here for the stalled transaction's lock on its
                    // counter until that worker resumes and is fenced out: longer than the network timeout.
                    tx.setNetworkTimeout(Runnable::run, (int) lockWait.toMillis());
                    count(tx, ctx.jobId());
                    if (work.failFirst() && ctx.attempt() == 1) {
                        throw new IllegalStateException("failing the first attempt on purpose, after counting");
                    }
                    workIgnoringInterrupts(dataSource, work.workMs(), ctx.jobId(), ctx.attempt(), name);
                })
                .handler(SequenceChaos.KIND, SequenceChaos.Step.class,
                        (step, ctx) -> SequenceChaos.run(dataSource, step, ctx, name))
                .handler(SignalChaos.WAITER, SignalChaos.Waiter.class,
                        (waiter, ctx) -> SignalChaos.runWaiter(dataSource, ctx, name))
                .handler(SignalChaos.TIMER, SignalChaos.Waiter.class,
                        (waiter, ctx) -> SignalChaos.runTimer(dataSource, ctx, name))
                .handler("tick", Work.class, (work, ctx) -> record(dataSource, "ledger", ctx.jobId(), ctx.attempt(), name))
                .handler("chaos_batch_done", Work.class,
                        (work, ctx) -> record(dataSource, "ledger", ctx.jobId(), ctx.attempt(), name))
                .handler("poison", Work.class, (work, ctx) -> {
                    record(dataSource, "ledger", ctx.jobId(), ctx.attempt(), name);
                    Runtime.getRuntime().halt(70);
                })
                .start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            worker.close();
            docket.close();
            dataSource.close();
            stopped.countDown();
        }));
        System.out.println("ready " + name);
        stopped.await();
    }

    private static DataSource listener(String url, String name) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url);
        ds.setUser("postgres");
        ds.setApplicationName("chaos-listener-" + name);
        return ds;
    }

    /** Adds one to the job's counter, in the handler's transaction. */
    private static void count(Connection tx, long jobId) throws Exception {
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + ChaosHarness.SCHEMA + ".counters AS c (job_id, n) "
                + "VALUES (?, 1) ON CONFLICT (job_id) DO UPDATE SET n = c.n + 1")) {
            ps.setLong(1, jobId);
            ps.executeUpdate();
        }
    }

    /** Works {@code ms}, recording an interrupt (a lost lease) and carrying on regardless. */
    private static void workIgnoringInterrupts(DataSource dataSource, int ms, long jobId, int attempt, String worker)
            throws Exception {
        long until = System.nanoTime() + ms * 1_000_000L;
        for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
            try {
                Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
            } catch (InterruptedException e) {
                record(dataSource, "interrupts", jobId, attempt, worker);
            }
        }
    }

    /**
     * Records a job's start in the ledger. A handler runs on a virtual thread, whose socket is closed when
     * it is interrupted during I/O: a handler that loses its lease while this write is on the wire (it
     * began during a cut and writes once the host heals) fails the write, which may have committed. That
     * handler was interrupted, and says so like one interrupted in its work.
     */
    private static void recordStart(DataSource dataSource, long jobId, int attempt, String worker) throws Exception {
        try {
            record(dataSource, "ledger", jobId, attempt, worker);
        } catch (SQLException e) {
            if (!Thread.interrupted()) {
                throw e;
            }
            record(dataSource, "interrupts", jobId, attempt, worker);
            InterruptedException interrupted = new InterruptedException("interrupted while recording its start");
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    static void record(DataSource dataSource, String table, long jobId, int attempt, String worker)
            throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + ChaosHarness.SCHEMA + "." + table + " (job_id, attempt, worker) VALUES (?, ?, ?)")) {
            ps.setLong(1, jobId);
            ps.setInt(2, attempt);
            ps.setString(3, worker);
            ps.executeUpdate();
        }
    }
}
