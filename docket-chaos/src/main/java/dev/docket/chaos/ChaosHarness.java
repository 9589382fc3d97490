package dev.docket.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Batch;
import dev.docket.BatchEnqueued;
import dev.docket.Docket;
import dev.docket.Enqueued;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import dev.docket.ScheduleDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The chaos harness: proves Docket's at-least-once promise with real processes and real servers. It
 * starts PostgreSQL as the scenario wants it (one server; a primary and a standby; PgBouncer in
 * front; two nodes under Patroni; worker hosts as network namespaces), several {@link ChaosWorker}
 * JVMs, enqueues jobs over the run, and meanwhile SIGKILLs a random worker every few seconds (starting
 * a replacement), SIGSTOPs one for longer than its lease (a zombie), and once mid-run causes the
 * scenario's disruption (a restart, a failover, a cut host; under Patroni a switchover first). Then it
 * checks: no job lost, none completed twice, every duplicate execution explained, and the time from
 * each lost lease to the job's next claim, plus the scenario's own checks. Exits 1 if any fails.
 * {@code --help} lists the options.
 */
public final class ChaosHarness {

    static final String SCHEMA = "chaos";

    private final ChaosOptions o;
    private final Random random = new Random();
    private final SignalChaos signals = new SignalChaos(random);
    private final Path runDir;
    private final List<Long> longJobs = new ArrayList<>();
    private ChaosDatabase database;
    private HostNetwork network;
    private HikariDataSource harness;
    private HikariDataSource producer;
    private WorkerFleet fleet;
    private HostCut cut;
    /** The host cut, once it happened (a run may end before its disruption is due). */
    private HostCut.Healed healed;
    private List<String> aliveAtDisruption = List.of();
    private List<String> aliveAtPlanned = List.of();
    /** The planned disruption's outage (a switchover), once it happened; else null. */
    private Outage planned;
    private Outage outage;
    /** How long the harness spent in database disruptions so far (their calls block it), in nanoseconds. */
    private long disrupting;

    private ChaosReport report;

    ChaosHarness(ChaosOptions options) throws Exception {
        this.o = options;
        this.runDir = Files.createTempDirectory("docket-chaos-");
    }

    public static void main(String[] args) throws Exception {
        ChaosOptions options = ChaosOptions.parse(args);
        boolean ok = new ChaosHarness(options).run();
        System.exit(ok ? 0 : 1);
    }

    /** Runs the scenario and its checks; true if they all passed. */
    boolean run() throws Exception {
        System.out.println("chaos: " + o.describe() + "; logs in " + runDir);
        try {
            network = o.hosts() > 0 ? new HostNetwork(o.hosts()) : null;
            database = openDatabase();
            harness = pool(database.harnessUrl(), "chaos-harness");
            producer = database.producerUrl().equals(database.harnessUrl()) ? harness
                    : pool(database.producerUrl(), "chaos-producer");
            try (Docket docket = Docket.builder(producer).schema(SCHEMA).build()) {
                docket.migrate();
                createTables(harness);
                // Beside the code-declared tick, one stored at run time: the same leader enqueues both, once per slot.
                docket.admin().createSchedule(ScheduleDefinition.of(ChaosCheck.RUNTIME_SCHEDULE, "* * * * * *", "tick")
                        .withPayloadJson("{\"n\": 0, \"workMs\": 0, \"failFirst\": false, \"slowHost\": 0, \"slowMs\": 0}"),
                        "chaos harness");
                fleet = new WorkerFleet(o, database, harness, runDir);
                cut = network == null ? null : new HostCut(o, network, fleet, harness);
                if (cut != null) {
                    fleet.spare(HostCut.HOST);
                }
                for (int i = 0; i < o.workers(); i++) {
                    fleet.start();
                }
                long started = System.nanoTime();
                List<Long> enqueued = produceWithChaos(docket, started);
                boolean drained = awaitDrained(docket, started);
                return finish(enqueued, drained, started);
            }
        } finally {
            if (fleet != null) {
                fleet.destroy();
            }
            if (producer != null && producer != harness) {
                producer.close();
            }
            if (harness != null) {
                harness.close();
            }
            if (database != null) {
                database.close();
            }
            if (network != null) {
                network.close();
            }
        }
    }

    /** The tables the workers' handlers record their executions in. */
    static void createTables(DataSource db) throws SQLException {
        for (String table : new String[] {"ledger", "interrupts"}) {
            Sql.execute(db, "CREATE TABLE " + SCHEMA + "." + table + " (job_id bigint NOT NULL, "
                    + "attempt int NOT NULL, worker text NOT NULL, at timestamptz NOT NULL DEFAULT now())");
        }
        Sql.execute(db, "CREATE TABLE " + SCHEMA + ".counters (job_id bigint PRIMARY KEY, n int NOT NULL)");
        SequenceChaos.createTable(db);
        SignalChaos.createTables(db);
    }

    private ChaosDatabase openDatabase() throws Exception {
        return switch (o.scenario()) {
            case FAILOVER_SYNC, FAILOVER_ASYNC -> new ReplicatedServers(runDir, o.scenario() == ChaosOptions.Scenario.FAILOVER_SYNC);
            case PGBOUNCER -> new PgBouncerFront(runDir, new SingleServer(runDir.resolve("pgdata"), Map.of()));
            case PATRONI -> new PatroniCluster(runDir, o.patroni());
            case CLASSIC, PARTITION -> new SingleServer(runDir.resolve("pgdata"), Map.of());
        };
    }

    private static HikariDataSource pool(String url, String name) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setMaximumPoolSize(12);
        config.setConnectionTimeout(5_000);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    /** Enqueues the jobs spread over the run while killing, stalling and disrupting as configured. */
    private List<Long> produceWithChaos(Docket docket, long started) throws Exception {
        List<Long> ids = new ArrayList<>(o.jobs() + o.poison());
        long runNanos = o.duration().toNanos();
        Disturbances schedule = new Disturbances(o, started, fleet, () -> {
            List<NewJob> longOnes = new ArrayList<>();
            for (int i = 0; i < o.longJobs(); i++) {
                longOnes.add(NewJob.of("chaos", new ChaosWorker.Work(-1000 - i, random.nextInt(1, 20), false, HostCut.HOST,
                        (int) o.longJobWork().toMillis())));
            }
            longJobs.addAll(enqueueRetrying(docket, longOnes));
            ids.addAll(longJobs);
        }, database.plannedDisruption() == null ? null : () -> {
            aliveAtPlanned = fleet.alive();
            long before = System.nanoTime();
            planned = database.disruptPlanned();
            disrupting += System.nanoTime() - before;
            if (database instanceof FailoverDatabase servers) {
                fleet.spareResuming(aliveAtPlanned, servers.plannedResumeBound());
            }
        }, () -> {
            aliveAtDisruption = fleet.alive();
            if (cut != null) {
                healed = cut.run();
            } else {
                long before = System.nanoTime();
                outage = database.disrupt();
                disrupting += System.nanoTime() - before;
                if (database instanceof FailoverDatabase servers) {
                    fleet.spareResuming(aliveAtDisruption, servers.resumeBound());
                }
            }
        });
        int batches = 100;
        for (int b = 0; b < batches; b++) {
            List<NewJob> batch = new ArrayList<>();
            int from = (int) ((long) o.jobs() * b / batches);
            int to = (int) ((long) o.jobs() * (b + 1) / batches);
            for (int i = from; i < to; i++) {
                // One job in fifty fails its first attempt: retries run through every deployment too.
                String kind = i % 100 < o.txShare() ? "counter" : "chaos";
                batch.add(NewJob.of(kind, ChaosWorker.Work.of(i, random.nextInt(1, 20), i % 50 == 7)));
            }
            // And ten keyed jobs, one in each of ten sequences, whose order the check verifies.
            batch.addAll(SequenceChaos.wave("seq-", 10, b, random.nextInt(1, 20)));
            // And jobs that wait for signals the loop below sends, and timers.
            int waiters = (int) ((long) o.jobs() * o.signalShare() / 100 / batches);
            batch.addAll(signals.jobs(waiters, waiters == 0 ? 0 : Math.max(1, waiters / 4)));
            if (o.scenario() == ChaosOptions.Scenario.CLASSIC && (b == batches / 4 || b == batches * 3 / 5)) {
                // Twice in a classic run, the maintenance leader itself: its slots must pass to the next one. No
                // leader may hold the lease just now (an election after a random kill): wait for one, a while.
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!fleet.killLeader() && System.nanoTime() < giveUp) {
                    fleet.replaceCrashed();
                    TimeUnit.MILLISECONDS.sleep(50);
                }
            }
            if (b == batches / 3) {
                for (int i = 0; i < o.poison(); i++) {
                    batch.add(NewJob.of("poison", ChaosWorker.Work.of(-i, 0, false),
                            JobOptions.builder().maxAttempts(3).build()));
                }
            }
            if (b == batches - 1) {
                ids.addAll(enqueueBatchRetrying(docket, batch.stream().map(j -> j.payload() instanceof ChaosWorker.Work w
                        ? NewJob.of(j.kind(), ChaosWorker.Work.of(w.n(), random.nextInt(200, 600), false), j.options())
                        : j).toList()));
                killDuringLastBatch();
            } else {
                ids.addAll(enqueueRetrying(docket, batch));
            }
            signals.signalWaiting(docket, producer);
            // The schedule waits out the time the harness spent causing a database disruption (a failover under
            // Patroni takes seconds): the enqueues go on at their rate after it instead of catching up in a burst,
            // whose backlog would delay every re-claim behind it.
            long batchDeadline = started + disrupting + runNanos * (b + 1) / batches;
            do {
                if (!schedule.runDue(System.nanoTime())) {
                    fleet.replaceCrashed();
                    TimeUnit.MILLISECONDS.sleep(50);
                }
            } while (System.nanoTime() < batchDeadline);
        }
        // A stall or a cut can push the events past the last batch: they still happen, in order.
        while (schedule.runOverdue()) {
            fleet.replaceCrashed();
        }
        return ids;
    }

    private static List<Long> enqueueRetrying(Docket docket, List<NewJob> batch) throws InterruptedException {
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

    /**
     * The run's last jobs as a {@link Batch} whose callback runs once they have all finished: its
     * completions are the run's last while workers are still being killed. Each attempt tags its jobs
     * with an id of its own, so that a batch enqueued twice (a retried enqueue that had committed) is
     * checked as two batches.
     */
    private static List<Long> enqueueBatchRetrying(Docket docket, List<NewJob> jobs) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            String tag = UUID.randomUUID().toString();
            Batch.Builder batch = Batch.builder().onAllFinished(NewJob.of("chaos_batch_done", ChaosWorker.Work.of(0, 0, false),
                    JobOptions.builder().metadata(ChaosCheck.BATCH_TAG, tag).build()));
            jobs.forEach(j -> batch.job(NewJob.of(j.kind(), j.payload(),
                    j.options().toBuilder().metadata(ChaosCheck.BATCH_TAG, tag).build())));
            try {
                BatchEnqueued enqueued = docket.enqueueBatch(batch.build());
                List<Long> ids = new ArrayList<>(enqueued.jobs().stream().map(Enqueued::id).toList());
                ids.add(enqueued.onAllFinished());
                return ids;
            } catch (RuntimeException e) {
                if (attempt >= 60) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    /**
     * Kills a worker while it runs jobs of the last batch (they work 200 to 600 ms each), so that the
     * batch's callback is settled by completions that come after a kill and a re-claim.
     */
    private void killDuringLastBatch() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (Sql.retrying(() -> Sql.count(harness, "SELECT count(*) FROM " + SCHEMA + ".jobs WHERE state = 'running' "
                    + "AND metadata ->> '" + ChaosCheck.BATCH_TAG + "' IS NOT NULL")) > 0) {
                System.out.println("chaos: killing a worker during the last batch's completions");
                fleet.killOne();
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private boolean awaitDrained(Docket docket, long started) throws Exception {
        long deadline = started + o.timeout().toNanos();
        while (System.nanoTime() < deadline) {
            fleet.replaceCrashed();
            signals.signalWaiting(docket, producer);
            // Cron ticks come every second: drained means nothing but ticks left, none of them older than 5 s.
            if (Sql.retrying(() -> Sql.count(harness, "SELECT count(*) FROM " + SCHEMA + ".jobs WHERE kind <> 'tick' "
                    + "OR run_at < now() - interval '5 seconds'")) == 0) {
                return true;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        System.out.println("chaos: timed out waiting for the queue to drain");
        return false;
    }

    private boolean finish(List<Long> enqueued, boolean drained, long started) throws Exception {
        List<Outage> outages = new ArrayList<>();
        if (planned != null) {
            outages.add(planned);
        }
        if (outage != null) {
            outages.add(outage);
        }
        ChaosCheck check = new ChaosCheck(o, harness, fleet, outages);
        ChaosReport live = new ChaosReport(o.poison());
        List<String> alive = fleet.alive();
        Sql.retrying(() -> {
            check.liveServices(live, alive.size());
            return null;
        });
        fleet.stop();
        Set<Long> lostToFailover = new HashSet<>();
        FailoverAudit audit = null;
        if (database instanceof FailoverDatabase servers && outage != null) {
            audit = new FailoverAudit(servers, harness, outage);
            audit.audit(enqueued, live, runDir.resolve("old-primary.log"));
            lostToFailover.addAll(audit.lostEnqueues());
        }
        LeaderLog leaders = LeaderLog.read(runDir);
        report = Sql.retrying(() -> check.run(enqueued, lostToFailover, leaders));
        report.absorb(live);
        SignalChaos.report(Sql.retrying(() -> signals.check(harness)), report);
        check.transactional(report, FenceLog.fencedOut(runDir));
        if (audit != null) {
            if (planned != null) {
                audit.plannedResumption(report, check, planned, aliveAtPlanned);
            }
            audit.resumption(report, check, aliveAtDisruption);
            audit.atEnd(report);
        }
        if (healed != null) {
            cut.check(healed, report, check, longJobs, runDir);
        }
        report.print(drained, (System.nanoTime() - started) / 1e9);
        return drained && report.ok();
    }

    /** What the finished run found; null before {@link #run()} got to its checks. */
    ChaosReport report() {
        return report;
    }
}
