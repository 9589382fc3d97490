package dev.docket.internal.service;

import dev.docket.internal.db.ConnectionLoss;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;

/**
 * A service whose work is one {@link #runOnce()} repeated on a jittered interval, on a thread of
 * its own. {@code start()} and {@code stop()} are safe to call twice; an exception in one round is
 * logged and the next round backs off (up to the service's maximum), so no failure ends the thread. Tests call {@code runOnce()}
 * directly instead of waiting for the timer.
 */
public abstract class PeriodicService {

    private final String name;
    private final Duration interval;
    private final Duration maxBackoff;
    private final Logger log;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private boolean woken;
    private volatile boolean running;
    private volatile int consecutiveFailures;
    private boolean lastFailureLostConnection;

    /** Lost connections are retried this many times in quick succession before backing off. */
    private static final int FAST_RETRIES = 20;
    private static final long FAST_RETRY_NANOS = 50_000_000L;
    private Thread thread;

    /**
     * @param maxBackoff the longest wait after failed rounds (the wait doubles per failure from
     *                   {@code interval}); {@code interval} itself for a service that must keep its
     *                   cadence whatever happens, such as the heartbeat, whose leases would lapse
     */
    protected PeriodicService(String name, Duration interval, Duration maxBackoff, Logger log) {
        this.name = name;
        this.interval = interval;
        this.maxBackoff = maxBackoff.compareTo(interval) < 0 ? interval : maxBackoff;
        this.log = log;
    }

    /** One round of work. */
    protected abstract void runOnce() throws Exception;

    public final synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().daemon().name(name).start(this::loop);
    }

    /** Stops the loop and waits for the round in progress to end. */
    public final void stop() {
        Thread t;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            t = thread;
        }
        wakeUp();
        try {
            t.join(Duration.ofSeconds(10).toMillis());
            if (t.isAlive()) {
                t.interrupt();
                t.join(Duration.ofSeconds(5).toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        afterStop();
    }

    /** Runs once the loop has ended, on the thread that called {@link #stop()}. */
    protected void afterStop() {
    }

    /** Runs the next round now instead of at the end of the interval. */
    public final void wakeUp() {
        lock.lock();
        try {
            woken = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public final boolean isRunning() {
        return running;
    }

    /** Rounds in a row that failed; 0 when the last round succeeded. */
    public final int consecutiveFailures() {
        return consecutiveFailures;
    }

    private void loop() {
        while (running) {
            try {
                runOnce();
                consecutiveFailures = 0;
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (Exception | LinkageError | AssertionError e) {
                lastFailureLostConnection = ConnectionLoss.isConnectionLost(e);
                int failures = ++consecutiveFailures;
                if (failures == 1 || failures % 10 == 0) {
                    log.warn("docket: {} failed ({} in a row): {}", name, failures, e.toString());
                }
            }
            long base = interval.toNanos();
            long backoff = consecutiveFailures == 0 ? base
                    : lastFailureLostConnection && consecutiveFailures <= FAST_RETRIES ? Math.min(base, FAST_RETRY_NANOS)
                    : Math.min(base * (1L << Math.min(consecutiveFailures, 6)), maxBackoff.toNanos());
            long jittered = (long) (backoff * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble()));
            await(jittered);
        }
    }

    private void await(long nanos) {
        lock.lock();
        try {
            long left = nanos;
            while (running && !woken && left > 0) {
                left = wake.awaitNanos(left);
            }
            woken = false;
        } catch (InterruptedException e) {
            // Only stop() interrupts, after clearing `running`: the loop ends on its next check.
            woken = false;
        } finally {
            lock.unlock();
        }
    }
}
