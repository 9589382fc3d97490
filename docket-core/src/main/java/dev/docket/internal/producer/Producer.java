package dev.docket.internal.producer;

import dev.docket.QueueSettings;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.Service;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs of one queue for this worker, up to its free slots, in one statement per claim.
 *
 * <p>It claims while it believes the queue may hold ready jobs: after a notification, after a
 * claim that filled every slot it asked for, and at each (jittered) poll interval, which stays
 * the correctness backstop when notifications are lost or off. A claim that came back short
 * means the queue is drained until the next of those.
 */
public final class Producer extends Service {

    private static final Logger log = LoggerFactory.getLogger(Producer.class);
    private static final long COALESCE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Claims resume within about two seconds after an outage. */
    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2));

    private final String queue;
    private final int concurrency;
    private final int maxBatch;
    private final Duration pollInterval;
    private final Duration lease;
    private final Map<String, Duration> kindLeases;
    private final String workerId;
    private final Database store;
    private final JobExecutor executor;
    private final QueueSettingsWatcher queueSettings;
    private final Semaphore slots;
    /**
     * Jobs claimed whose outcome is not written yet: running, or waiting for the completer. A slot is
     * free as soon as its handler returns, so without this bound a completer slower than the claims
     * (a checkpoint, a slow disk) would let claimed jobs pile up until their leases expired, and every
     * rescued job's outcome would then be thrown away: a measured 10-minute soak at 6,400 jobs/s
     * ended with 590,000 jobs behind. One batch beyond the running handlers keeps claims and outcome
     * writes overlapping.
     */
    private final AtomicInteger unsettled = new AtomicInteger();
    private final int maxUnsettled;
    private boolean mayHaveWork = true;
    private long wakeGeneration;
    /** The last claim got every job it asked for: the queue has more than this worker can take at once. */
    private boolean busy;

    public Producer(String queue, int concurrency, int maxBatch, Duration pollInterval, Duration lease,
                    String workerId, Database store, JobExecutor executor, QueueSettingsWatcher queueSettings) {
        super("docket-producer-" + queue, BACKOFF, log);
        this.queue = queue;
        this.concurrency = concurrency;
        this.maxBatch = maxBatch;
        this.pollInterval = pollInterval;
        this.lease = lease;
        this.kindLeases = executor.kindLeases();
        this.workerId = workerId;
        this.store = store;
        this.executor = executor;
        this.queueSettings = queueSettings;
        this.slots = new Semaphore(concurrency);
        this.maxUnsettled = concurrency + maxBatch;
    }

    public String queue() {
        return queue;
    }

    /** New jobs may be ready in this queue (a notification arrived, or the listener reconnected). */
    public void jobsAvailable() {
        signal(true);
    }

    /** Waits until every slot is free (all handlers returned); false on timeout. */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        if (slots.tryAcquire(concurrency, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            slots.release(concurrency);
            return true;
        }
        return false;
    }

    /** Handlers running now. */
    public int running() {
        return concurrency - slots.availablePermits();
    }

    /**
     * How many jobs the next claim may take: no more than the free slots and the batch size, and no
     * more than keeps the jobs whose outcome is not written yet within {@link #maxUnsettled}.
     */
    private int claimable() {
        return Math.max(0, Math.min(Math.min(slots.availablePermits(), maxBatch), maxUnsettled - unsettled.get()));
    }

    /** Claims and starts as many jobs as {@link #claimable()} allows; returns how many it claimed. */
    int runOnce() throws SQLException {
        int want = claimable();
        if (want == 0) {
            return 0;
        }
        QueueSettings settings = queueSettings.settings(queue);
        List<ClaimedJob> jobs = settings.capped()
                ? store.claims().claimCapped(queue, want, settings, lease, kindLeases, workerId)
                : store.claims().claim(queue, want, lease, kindLeases, workerId);
        for (ClaimedJob job : jobs) {
            slots.acquireUninterruptibly();
            unsettled.incrementAndGet();
            executor.execute(job, this::slotFreed, this::outcomeSettled);
        }
        return jobs.size();
    }

    /**
     * A written outcome makes room under {@link #maxUnsettled}. And a capped claim can come back short
     * because of the caps, not because the queue is empty; each written outcome lowers the running
     * counts the caps compare with, so it is worth another claim.
     */
    private void outcomeSettled() {
        unsettled.decrementAndGet();
        signal(queueSettings.settings(queue).capped());
    }

    private void slotFreed() {
        slots.release();
        signal(false);
    }

    private void signal(boolean work) {
        lock.lock();
        try {
            if (work) {
                mayHaveWork = true;
                wakeGeneration++;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Claims while running; {@link #stop()} ends the claiming, jobs already claimed keep running. */
    @Override
    protected void run() {
        while (isRunning()) {
            long generation;
            lock.lock();
            try {
                long pollNanos = jittered(pollInterval.toNanos());
                while (isRunning() && !(mayHaveWork && claimable() > 0)) {
                    if (pollNanos <= 0) {
                        mayHaveWork = true;
                        pollNanos = jittered(pollInterval.toNanos());
                        continue;
                    }
                    pollNanos = changed.awaitNanos(pollNanos);
                }
                generation = wakeGeneration;
            } catch (InterruptedException e) {
                continue;
            } finally {
                lock.unlock();
            }
            if (!isRunning()) {
                return;
            }
            if (busy) {
                awaitBatch();
            }
            int asked = claimable();
            roundStarted();
            try {
                int claimed = runOnce();
                succeeded();
                busy = claimed == asked && asked > 1;
                if (claimed < asked) {
                    lock.lock();
                    try {
                        if (wakeGeneration == generation) {
                            mayHaveWork = false;
                        }
                    } finally {
                        lock.unlock();
                    }
                }
            } catch (SQLException | RuntimeException e) {
                long backoff = failed(e);
                roundEnded();
                pause(backoff);
            } finally {
                roundEnded();
            }
        }
    }

    /**
     * On a busy queue, waits briefly for half the batch's slots to be free before claiming: a claim
     * costs about the same for one job as for fifty, and short handlers free their slots within
     * microseconds of each other, so claiming at the first free slot made many small claims. The
     * wait is bounded by {@link #COALESCE_NANOS}, which long handlers never notice.
     */
    private void awaitBatch() {
        int wanted = Math.max(1, maxBatch / 2);
        long nanos = COALESCE_NANOS;
        lock.lock();
        try {
            while (isRunning() && nanos > 0 && claimable() < wanted) {
                nanos = changed.awaitNanos(nanos);
            }
        } catch (InterruptedException e) {
            // stop() wakes the loop; running decides.
        } finally {
            lock.unlock();
        }
    }

}
