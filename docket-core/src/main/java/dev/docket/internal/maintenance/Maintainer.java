package dev.docket.internal.maintenance;

import dev.docket.internal.db.JobStore;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's housekeeping, one round per interval: enqueues due slots of periodic jobs, makes
 * due scheduled jobs ready (and wakes their queues), rescues jobs whose lease expired, and, less
 * often, creates the coming days' history partitions, drops expired ones, and deletes expired dead jobs and unique keys. Every step is idempotent
 * and takes rows with SKIP LOCKED, so several nodes running it at once do no harm.
 */
public final class Maintainer extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(Maintainer.class);
    private static final int PAGE = 1000;
    private static final Duration HOUSEKEEPING_INTERVAL = Duration.ofMinutes(10);

    private final JobStore store;
    private final CronEnqueuer cron;
    private final Duration historyRetention;
    private final Duration deadJobRetention;
    private long nextHousekeeping = System.nanoTime();

    public Maintainer(JobStore store, Duration interval, Duration historyRetention, Duration deadJobRetention) {
        this(store, interval, historyRetention, deadJobRetention, new CronEnqueuer(store, java.util.List.of()));
    }

    public Maintainer(JobStore store, Duration interval, Duration historyRetention, Duration deadJobRetention,
                      CronEnqueuer cron) {
        // Short backoff: after an outage, rescue and promotion should resume within seconds.
        super("docket-maintainer", interval, Duration.ofSeconds(2), log);
        this.store = store;
        this.cron = cron;
        this.historyRetention = historyRetention;
        this.deadJobRetention = deadJobRetention;
    }

    @Override
    public void runOnce() throws SQLException {
        cron.runOnce();
        promoteDue();
        rescueExpired();
        if (System.nanoTime() - nextHousekeeping >= 0) {
            housekeeping();
            nextHousekeeping = System.nanoTime() + HOUSEKEEPING_INTERVAL.toNanos();
        }
    }

    /** Makes every due scheduled job ready; returns how many. */
    public int promoteDue() throws SQLException {
        int total = 0;
        while (true) {
            Map<String, Integer> promoted = store.jobPromoteDue(PAGE);
            int n = promoted.values().stream().mapToInt(Integer::intValue).sum();
            total += n;
            if (n < PAGE) {
                return total;
            }
        }
    }

    /** Rescues every job whose lease expired; returns how many went back to ready or to the dead-letter table. */
    public int rescueExpired() throws SQLException {
        int total = 0;
        long after = 0;
        while (true) {
            JobStore.Rescue page = store.jobRescueExpired(after, PAGE);
            total += page.rescued() + page.dead();
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

    /** Creates the coming days' history partitions and applies the retention of history and dead jobs. */
    public void housekeeping() throws SQLException {
        store.historyCreatePartitions(3);
        // With retention zero only cancelled jobs reach the history; they are kept for a day.
        Duration retention = historyRetention.isZero() ? Duration.ofDays(1) : historyRetention;
        int dropped = store.historyDropPartitions(retention);
        if (dropped > 0) {
            log.info("docket: dropped {} expired history partitions", dropped);
        }
        while (store.uniqueKeyDeleteExpired(PAGE) == PAGE) {
            log.debug("docket: deleted a page of expired unique keys");
        }
        while (store.deadJobDeleteExpired(deadJobRetention, PAGE) == PAGE) {
            log.debug("docket: deleted a page of expired dead jobs");
        }
    }
}
