package dev.docket.internal.maintenance;

import dev.docket.internal.db.Database;
import dev.docket.internal.db.JobQueries;
import dev.docket.internal.observe.JobObserver;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's housekeeping, one round per interval: enqueues due slots of periodic jobs, makes
 * due scheduled jobs ready (and wakes their queues), takes jobs whose wait for a signal timed out down
 * their path, rescues jobs whose lease expired, folds the outcome counters' deltas into their totals,
 * vacuums the jobs table when dead rows pile up, and, less often, creates the coming days' history
 * partitions, drops expired ones, and deletes expired dead jobs, unique keys, and the signals of jobs
 * that finished. Every step is idempotent and takes rows with SKIP LOCKED, so several nodes running it
 * at once do no harm.
 */
public final class Maintainer extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(Maintainer.class);
    private static final int PAGE = 1000;
    /** Deltas are a few small columns: a page of them folds in milliseconds. */
    private static final int FOLD_PAGE = 10_000;
    private static final Duration HOUSEKEEPING_INTERVAL = Duration.ofMinutes(10);
    /** About a second of dead rows at a few thousand jobs/s; fewer do not slow a claim down measurably. */
    static final long VACUUM_DEAD_ROWS = 10_000;
    /** Time between vacuums, as a multiple of the last one's duration: vacuuming takes at most a third of a core. */
    private static final int VACUUM_DUTY = 3;
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private final Database store;
    private final CronEnqueuer cron;
    private final JobObserver observer;
    private final DeadJobReplayer deadJobReplayer;
    private final Duration historyRetention;
    private final Duration deadJobRetention;
    private long nextHousekeeping = System.nanoTime();
    private long nextVacuum = System.nanoTime();
    private boolean vacuumRefused;

    public Maintainer(Database store, Duration interval, Duration historyRetention, Duration deadJobRetention) {
        this(store, interval, historyRetention, deadJobRetention, new CronEnqueuer(store, List.of(), CronEnqueuer.StoredJobs.NONE), JobObserver.NONE);
    }

    /** @param observer counts the attempts that rescued jobs lost, and the jobs that died of it */
    public Maintainer(Database store, Duration interval, Duration historyRetention, Duration deadJobRetention,
                      CronEnqueuer cron, JobObserver observer) {
        // Short backoff: after an outage, rescue and promotion should resume within seconds.
        super("docket-maintainer", interval, new Backoff(interval, Duration.ofSeconds(2)), log);
        this.store = store;
        this.cron = cron;
        this.observer = observer;
        this.deadJobReplayer = new DeadJobReplayer(store);
        this.historyRetention = historyRetention;
        this.deadJobRetention = deadJobRetention;
    }

    @Override
    public void runOnce() throws SQLException {
        cron.runOnce();
        promoteDue();
        expireSignalWaits();
        rescueExpired();
        foldJobCounts();
        deadJobReplayer.runOnce();
        vacuumIfDue();
        if (System.nanoTime() - nextHousekeeping >= 0) {
            housekeeping();
            nextHousekeeping = System.nanoTime() + HOUSEKEEPING_INTERVAL.toNanos();
        }
    }

    /** Makes every due scheduled job ready; returns how many. */
    public int promoteDue() throws SQLException {
        int total = 0;
        while (true) {
            Map<String, Integer> promoted = store.jobs().promoteDue(PAGE);
            int n = promoted.values().stream().mapToInt(Integer::intValue).sum();
            total += n;
            if (n < PAGE) {
                return total;
            }
        }
    }

    /**
     * Takes every job whose wait for a signal reached its deadline down its path (run anyway, dead, or
     * cancelled); returns how many. Each job's wait ends once: the statements match only waits still open.
     */
    public int expireSignalWaits() throws SQLException {
        int total = 0;
        while (true) {
            JobQueries.WaitsTimedOut page = store.jobs().expireSignalWaits(PAGE);
            int moved = page.run() + page.failed() + page.cancelled();
            total += moved;
            if (moved > 0) {
                log.info("docket: {} waits for a signal timed out ({} run anyway, {} failed, {} cancelled)", moved,
                        page.run(), page.failed(), page.cancelled());
            }
            if (page.scanned() < PAGE || moved == 0) {
                return total;
            }
        }
    }

    /** Rescues every job whose lease expired; returns how many went back to ready or to the dead-letter table. */
    public int rescueExpired() throws SQLException {
        int total = 0;
        long after = 0;
        while (true) {
            JobQueries.Rescue page = store.jobs().rescueExpired(after, PAGE);
            total += page.rescued() + page.dead();
            page.jobs().forEach(job -> observer.rescued(job.queue(), job.kind(), job.dead()));
            if (page.rescued() + page.dead() > 0) {
                log.info("docket: rescued {} jobs whose worker lost its lease ({} to the dead-letter table)",
                        page.rescued() + page.dead(), page.dead());
            }
            if (page.scanned() < PAGE) {
                return total;
            }
            after = page.lastId();
        }
    }

    /**
     * Folds the outcome counters' deltas (one row per completion batch and queue and kind) into their
     * totals; returns how many. Every round, so that the deltas stay about a round's worth of batches.
     */
    public int foldJobCounts() throws SQLException {
        int total = 0;
        while (true) {
            int n = store.jobCounts().fold(FOLD_PAGE);
            total += n;
            if (n < FOLD_PAGE) {
                return total;
            }
        }
    }

    /**
     * Vacuums the jobs table once it holds {@link #VACUUM_DEAD_ROWS} dead rows; returns whether it did.
     * Every claim and every completion leaves a dead row, and the claim's index scan steps over the
     * dead entries at the head of the queue until a vacuum removes them. Autovacuum visits a database
     * only once per {@code autovacuum_naptime} (a server-wide setting, one minute by default): at ten
     * thousand jobs a second that is over a million dead rows, enough to slow claims below the
     * arrival rate, so the backlog and the dead rows then grow together (measured: a steady load at
     * 70% of the drain rate was completed at 17% of that rate by its third run). A vacuum that finds
     * the table locked (autovacuum got there first) is skipped; a role that may not vacuum the table
     * gets a warning from the server instead, and then autovacuum alone does it.
     */
    public boolean vacuumIfDue() throws SQLException {
        if (vacuumRefused || System.nanoTime() - nextVacuum < 0 || store.jobs().deadRows() < VACUUM_DEAD_ROWS) {
            return false;
        }
        long start = System.nanoTime();
        SQLWarning skipped = store.jobs().vacuum();
        long took = System.nanoTime() - start;
        nextVacuum = System.nanoTime() + VACUUM_DUTY * took;
        if (skipped != null) {
            if (INSUFFICIENT_PRIVILEGE.equals(skipped.getSQLState())) {
                vacuumRefused = true;
                log.warn("docket: cannot vacuum the jobs table ({}); autovacuum alone will have to keep up",
                        skipped.getMessage());
            }
            return false;
        }
        log.debug("docket: vacuumed the jobs table in {} ms", took / 1_000_000);
        return true;
    }

    /** Creates the coming days' history partitions and applies the retention of history and dead jobs. */
    public void housekeeping() throws SQLException {
        store.history().createPartitions(3);
        // With retention zero only cancelled jobs reach the history; they are kept for a day.
        Duration retention = historyRetention.isZero() ? Duration.ofDays(1) : historyRetention;
        int dropped = store.history().dropPartitions(retention);
        if (dropped > 0) {
            log.info("docket: dropped {} expired history partitions", dropped);
        }
        while (store.uniqueKeys().deleteExpired(PAGE) == PAGE) {
            log.debug("docket: deleted a page of expired unique keys");
        }
        while (store.deadJobs().deleteExpired(deadJobRetention, PAGE) == PAGE) {
            log.debug("docket: deleted a page of expired dead jobs");
        }
        while (store.signals().deleteFinished(retention.toMillis(), PAGE) == PAGE) {
            log.debug("docket: deleted a page of signals of finished jobs");
        }
    }
}
