package dev.docket.internal.service;

import java.time.Duration;
import org.slf4j.Logger;

/**
 * A service whose work is one {@link #runOnce()} repeated on a jittered interval. A failed round is
 * logged (see {@link FailureLog}) and followed by the {@link Backoff}'s wait instead of the
 * interval, so no failure ends the thread. {@link #wakeUp()} runs the next round at once. Tests call
 * {@code runOnce()} directly instead of waiting for the timer.
 */
public abstract class PeriodicService extends Service {

    private final long intervalNanos;
    private boolean woken;

    protected PeriodicService(String name, Duration interval, Backoff backoff, Logger log) {
        super(name, backoff, log);
        this.intervalNanos = interval.toNanos();
    }

    /** One round of work. */
    protected abstract void runOnce() throws Exception;

    @Override
    protected final void run() {
        while (isRunning()) {
            long wait;
            roundStarted();
            try {
                runOnce();
                succeeded();
                wait = jittered(intervalNanos);
            } catch (InterruptedException e) {
                if (!isRunning()) {
                    return;
                }
                wait = failed(e);
            } catch (Exception | LinkageError | AssertionError e) {
                wait = failed(e);
            } finally {
                roundEnded();
            }
            awaitWakeUp(wait);
        }
    }

    /** Runs the next round now instead of at the end of the interval or backoff. */
    public final void wakeUp() {
        lock.lock();
        try {
            woken = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void awaitWakeUp(long nanos) {
        lock.lock();
        try {
            long left = nanos;
            while (isRunning() && !woken && left > 0) {
                left = changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            // Only stop() interrupts, after clearing the running flag: the loop ends on its next check.
        } finally {
            woken = false;
            lock.unlock();
        }
    }
}
