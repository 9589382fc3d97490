package dev.docket.internal.producer;

import dev.docket.QueueSettings;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.RateLimitQueries;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.executor.RunningJob;
import dev.docket.internal.observe.JobObserver;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.Service;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims jobs of one queue for this worker, up to its free slots and a bounded number ahead of
 * them, in one statement per claim.
 *
 * <p>Claiming ahead: with short handlers, one claim per few freed slots costs more than the jobs, so
 * the producer also holds up to {@code claimAhead} claimed jobs that have no slot yet and starts each
 * the moment a slot frees, without a round trip. They are claimed in every sense: their attempt is
 * counted, their lease is held and extended by the heartbeat, their outcome is fenced, and they count
 * as running for the queue's caps. It holds no more than its slots start within
 * {@link #AHEAD_HORIZON} at the handlers' measured running time, so long jobs are never claimed ahead
 * (no worker hoards a queue), and a higher-priority job that arrives waits behind at most that much
 * work. A capped queue does not claim ahead. A job held ahead that is cancelled or rescued leaves
 * the buffer without running, and a stopping producer gives the jobs it holds back at once, their
 * attempt not counted.
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
    /** Jobs are claimed ahead only as many as the free slots start within this, at the measured running time. */
    static final Duration AHEAD_HORIZON = Duration.ofMillis(50);
    private static final double AHEAD_HORIZON_NANOS = AHEAD_HORIZON.toNanos();
    private static final Comparator<RunningJob> CLAIM_ORDER = Comparator
            .comparingInt((RunningJob r) -> r.job().priority())
            .thenComparing(r -> r.job().runAt())
            .thenComparingLong(r -> r.job().id());
    /** Weight of the newest handler's running time in {@link #runNanos}. */
    private static final double RUN_TIME_WEIGHT = 0.05;

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
    private final JobObserver observer;
    /** Removes this producer's slots from the gauges; set while it runs. */
    private Runnable unserved;
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
    private final int claimAhead;
    /**
     * Claimed jobs waiting for a slot, in claim order (a claim returns its rows in no order, and a
     * later claim may bring a more urgent job); guarded by itself.
     */
    private final PriorityQueue<RunningJob> ahead = new PriorityQueue<>(CLAIM_ORDER);
    /** The handlers' running time, a moving average; NaN until one has run. */
    private volatile double runNanos = Double.NaN;
    /** Set at stop: jobs held ahead are given back, not started. */
    private volatile boolean stopping;
    private boolean mayHaveWork = true;
    private long wakeGeneration;
    /** The last claim got every job it asked for: the queue has more than this worker can take at once. */
    private boolean busy;
    /** Set by a claim that a rate limit held back: the queue is looked at again when a permit frees. */
    private volatile Duration nextPermit;

    public Producer(String queue, int concurrency, int maxBatch, int claimAhead, Duration pollInterval,
                    Duration lease, String workerId, Database store, JobExecutor executor,
                    QueueSettingsWatcher queueSettings, JobObserver observer) {
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
        this.observer = observer;
        this.slots = new Semaphore(concurrency);
        this.claimAhead = claimAhead;
        this.maxUnsettled = concurrency + maxBatch + claimAhead;
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

    /** Jobs claimed ahead, waiting for a slot. */
    private int heldAhead() {
        synchronized (ahead) {
            return ahead.size();
        }
    }

    /**
     * How many jobs the next claim may take: no more than the free slots plus what may be held ahead,
     * and the batch size, and no more than keeps the jobs whose outcome is not written yet within
     * {@link #maxUnsettled}.
     */
    private int claimable() {
        int room = slots.availablePermits() + aheadTarget() - heldAhead();
        return Math.max(0, Math.min(Math.min(room, maxBatch), maxUnsettled - unsettled.get()));
    }

    /** How many jobs to hold ahead: what the slots start within {@link #AHEAD_HORIZON}, at most {@link #claimAhead}. */
    private int aheadTarget() {
        double run = runNanos;
        if (claimAhead == 0 || Double.isNaN(run) || queueSettings.settings(queue).capped()
                || queueSettings.rateLimited(queue, executor.kinds())) {
            return 0;
        }
        return (int) Math.min(claimAhead, concurrency * AHEAD_HORIZON_NANOS / Math.max(run, 1));
    }

    /** Claims as many jobs as {@link #claimable()} allows and starts those a slot is free for; returns how many it claimed. */
    int runOnce() throws SQLException {
        int want = claimable();
        if (want == 0) {
            return 0;
        }
        QueueSettings settings = queueSettings.settings(queue);
        long started = observer.claimStarting();
        List<ClaimedJob> jobs;
        if (queueSettings.rateLimited(queue, executor.kinds())) {
            RateLimitQueries.Claim claim = store.rateLimits()
                    .claim(queue, want, settings, executor.kinds(), lease, kindLeases, workerId);
            jobs = claim.jobs();
            nextPermit = claim.nextPermit();
            if (claim.heldBack()) {
                observer.rateLimited(queue);
            }
        } else {
            nextPermit = null;
            jobs = settings.capped()
                    ? store.claims().claimCapped(queue, want, settings, lease, kindLeases, workerId)
                    : store.claims().claim(queue, want, lease, kindLeases, workerId);
        }
        observer.claimed(queue, started, jobs, lease, kindLeases);
        for (ClaimedJob job : jobs) {
            unsettled.incrementAndGet();
            RunningJob held = executor.hold(job);
            synchronized (ahead) {
                ahead.add(held);
            }
            held.onLost(() -> dropLost(held));
        }
        startAhead();
        return jobs.size();
    }

    /** Starts held jobs, oldest first, while slots are free and the producer is not stopping. */
    private void startAhead() {
        while (!stopping) {
            RunningJob next;
            synchronized (ahead) {
                if (ahead.isEmpty() || !slots.tryAcquire()) {
                    return;
                }
                next = ahead.poll();
            }
            long startedNanos = System.nanoTime();
            executor.start(next, () -> handlerDone(startedNanos), this::outcomeSettled);
        }
    }

    /** A held job was cancelled or rescued before its handler started: it leaves without running. */
    private void dropLost(RunningJob held) {
        boolean removed;
        synchronized (ahead) {
            removed = ahead.remove(held);
        }
        if (removed) {
            executor.forget(held);
            outcomeSettled();
        }
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

    private void handlerDone(long startedNanos) {
        double took = System.nanoTime() - startedNanos;
        double run = runNanos;
        runNanos = Double.isNaN(run) ? took : run + RUN_TIME_WEIGHT * (took - run);
        slots.release();
        startAhead();
        signal(false);
    }

    @Override
    protected void beforeStart() {
        stopping = false;
        unserved = observer.served(queue, concurrency, this::running);
    }

    @Override
    protected void beforeStop() {
        stopping = true;
    }

    /** Gives back the jobs held ahead at once, their attempt not counted: they never ran; leaves the gauges. */
    @Override
    protected void afterStop() {
        List<RunningJob> held;
        synchronized (ahead) {
            held = List.copyOf(ahead);
            ahead.clear();
        }
        for (RunningJob job : held) {
            executor.release(job, this::outcomeSettled);
        }
        unserved.run();
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
                long pollNanos = untilNextLook();
                while (isRunning() && !(mayHaveWork && claimable() > 0)) {
                    if (pollNanos <= 0) {
                        mayHaveWork = true;
                        pollNanos = untilNextLook();
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
                // A claim a limit held back may have left other kinds' jobs behind the refused ones: look again.
                if (claimed < asked && !(nextPermit != null && claimed > 0)) {
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

    /** The (jittered) poll interval, or sooner when a rate limit's next permit frees before it. */
    private long untilNextLook() {
        long poll = jittered(pollInterval.toNanos());
        Duration permit = nextPermit;
        return permit == null ? poll : Math.min(poll, permit.toNanos());
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
