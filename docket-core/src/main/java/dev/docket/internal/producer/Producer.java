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
 * the producer also holds claimed jobs that have no slot yet and starts each the moment a slot frees,
 * without a round trip; {@link ClaimAhead} says how many. They are claimed in every sense: their
 * attempt is counted, their lease is held and extended by the heartbeat, their outcome is fenced, and
 * they count as running for the queue's caps. A capped or rate-limited queue does not claim ahead. A
 * job held ahead that is cancelled or rescued leaves the buffer without running, and a stopping
 * producer gives the jobs it holds back at once, their attempt not counted.
 *
 * <p>It claims while it believes the queue may hold ready jobs: after a notification, after a
 * claim that filled every slot it asked for, and at each (jittered) poll interval, which stays
 * the correctness backstop when notifications are lost or off. Only a claim that got fewer jobs than
 * that same claim asked for says the queue is drained (until the next of those): the number it may
 * ask for moves while handlers run, so a number read before the claim says nothing about it.
 */
public final class Producer extends Service {

    private static final Logger log = LoggerFactory.getLogger(Producer.class);
    private static final long COALESCE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Claims resume within about two seconds after an outage. */
    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2));
    /**
     * The jobs of a rate-limited claim start within this share of the shortest period they count towards
     * after the claim was sent, or not at all: see {@link #startsInTime}.
     */
    static final int START_WITHIN_PERIOD_DIVISOR = 10;
    /** ... but never less than this, which a healthy claim's round trip stays well under. */
    static final Duration MIN_START_WITHIN = Duration.ofMillis(50);
    private static final Comparator<RunningJob> CLAIM_ORDER = Comparator
            .comparingInt((RunningJob r) -> r.job().priority())
            .thenComparing(r -> r.job().runAt())
            .thenComparingLong(r -> r.job().id());

    /**
     * A producer's settings.
     *
     * @param queue        the queue it claims from
     * @param concurrency  its slots: handlers of the queue running at once on this worker
     * @param maxBatch     the most jobs one claim takes
     * @param claimAhead   the most jobs held ahead of free slots; 0 turns claiming ahead off
     * @param pollInterval how long it waits for a wake-up before it looks anyway (jittered)
     * @param lease        the lease a claim takes, for kinds without a lease of their own
     * @param workerId     the worker the claims are made for
     */
    public record Settings(String queue, int concurrency, int maxBatch, int claimAhead, Duration pollInterval,
                           Duration lease, String workerId) {
    }

    /**
     * What one claim asked for and got.
     *
     * @param asked    the jobs it asked for (0: it had no room and did not claim)
     * @param got      the jobs it got
     * @param heldBack whether a rate limit held jobs of the queue back
     */
    record Claim(int asked, int got, boolean heldBack) {

        /** The claim had room for more than the queue gave: the queue is drained for now. */
        boolean drained() {
            // A claim a limit held back may have left other kinds' jobs behind the refused ones: look again.
            return got < asked && !(heldBack && got > 0);
        }

        /** The claim got every job it asked for: the queue has more than this worker can take at once. */
        boolean full() {
            return got == asked && asked > 1;
        }
    }

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
    private final ClaimAhead claimAhead;
    /**
     * Claimed jobs waiting for a slot, in claim order (a claim returns its rows in no order, and a
     * later claim may bring a more urgent job); guarded by itself.
     */
    private final PriorityQueue<RunningJob> ahead = new PriorityQueue<>(CLAIM_ORDER);
    /** Set at stop: jobs held ahead are given back, not started. */
    private volatile boolean stopping;
    private boolean mayHaveWork = true;
    private long wakeGeneration;
    /** The last claim got every job it asked for. */
    private boolean busy;
    /** Set by a claim that a rate limit held back: the queue is looked at again when a permit frees. */
    private volatile Duration nextPermit;

    public Producer(Settings settings, Database store, JobExecutor executor, QueueSettingsWatcher queueSettings,
                    JobObserver observer) {
        this(settings, store, executor, queueSettings, observer,
                new ClaimAhead(settings.concurrency(), settings.claimAhead()));
    }

    /** With the claim-ahead rule given: tests make it move between any two reads. */
    Producer(Settings settings, Database store, JobExecutor executor, QueueSettingsWatcher queueSettings,
             JobObserver observer, ClaimAhead claimAhead) {
        super("docket-producer-" + settings.queue(), BACKOFF, log);
        this.queue = settings.queue();
        this.concurrency = settings.concurrency();
        this.maxBatch = settings.maxBatch();
        this.pollInterval = settings.pollInterval();
        this.lease = settings.lease();
        this.kindLeases = executor.kindLeases();
        this.workerId = settings.workerId();
        this.store = store;
        this.executor = executor;
        this.queueSettings = queueSettings;
        this.observer = observer;
        this.slots = new Semaphore(concurrency);
        this.claimAhead = claimAhead;
        this.maxUnsettled = concurrency + maxBatch + settings.claimAhead();
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

    /** How many jobs to hold ahead: none for a capped or rate-limited queue, else what {@link ClaimAhead} says. */
    private int aheadTarget() {
        if (queueSettings.settings(queue).capped() || queueSettings.rateLimited(queue, executor.kinds())) {
            return 0;
        }
        return claimAhead.target();
    }

    /**
     * Claims as many jobs as {@link #claimable()} allows, read once, and starts those a slot is free for;
     * says what it asked for and got.
     */
    Claim runOnce() throws SQLException {
        int want = claimable();
        if (want == 0) {
            return new Claim(0, 0, false);
        }
        QueueSettings settings = queueSettings.settings(queue);
        long started = observer.claimStarting();
        long sent = System.nanoTime();
        List<ClaimedJob> jobs;
        boolean heldBack = false;
        boolean late = false;
        if (queueSettings.rateLimited(queue, executor.kinds())) {
            RateLimitQueries.Claim claim = store.rateLimits()
                    .claim(queue, want, settings, executor.kinds(), lease, kindLeases, workerId);
            jobs = claim.jobs();
            nextPermit = claim.nextPermit();
            heldBack = claim.heldBack();
            if (heldBack) {
                observer.rateLimited(queue);
            }
            late = !startsInTime(sent, claim.shortestPeriod());
            if (late) {
                log.info("docket: gave back {} jobs of queue {}: their rate-limited claim took {} ms, too long for "
                        + "their starts to keep to the limit", jobs.size(), queue, (System.nanoTime() - sent) / 1_000_000);
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
            if (late) {
                executor.release(held, this::outcomeSettled);
                continue;
            }
            synchronized (ahead) {
                ahead.add(held);
            }
            held.onLost(() -> dropLost(held));
        }
        startAhead();
        return new Claim(want, jobs.size(), heldBack);
    }

    /**
     * Whether the jobs of a rate-limited claim sent at {@code sent} (nanoTime) may still start. The limit
     * counts each start at the claim's time by the database clock, which lies between the claim's sending
     * and its answer; handlers start when the answer is in. A late answer (a slow commit, a pause of
     * this JVM) followed by a prompt one would bunch two claims' handlers closer than their windows
     * allow: a claim of a limit with a 1 s period whose jobs started 200 ms after it was counted, and
     * the next claim's at once, made 36 starts within one second under a limit of 20. Jobs that cannot
     * start within a tenth of their shortest period (at least {@link #MIN_START_WITHIN}) of the claim
     * are given back unstarted, their attempt not counted and the permits they used spent (the limit
     * errs towards fewer starts, never more): each start then lies within that bound after the time the
     * limit counted it, so at most {@code permits} handlers start in any window of nine tenths of the
     * period.
     */
    private static boolean startsInTime(long sent, Duration shortestPeriod) {
        if (shortestPeriod == null) {
            return true;
        }
        Duration bound = shortestPeriod.dividedBy(START_WITHIN_PERIOD_DIVISOR);
        long boundNanos = Math.max(MIN_START_WITHIN.toNanos(), bound.toNanos());
        return System.nanoTime() - sent <= boundNanos;
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
        claimAhead.handlerRan(System.nanoTime() - startedNanos);
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
            roundStarted();
            try {
                Claim claim = runOnce();
                succeeded();
                busy = claim.full();
                if (claim.drained()) {
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
