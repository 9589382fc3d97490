package dev.docket.internal.service;

import dev.docket.internal.db.ConnectionLoss;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;

/**
 * A long-lived service running {@link #run()} on a platform thread of its own.
 *
 * <p>{@link #start()} and {@link #stop()} are safe to call twice, from any thread, and a stopped
 * service can be started again. Every service stops the same way: it is asked to stop (its running
 * flag is cleared and {@link #wake()} ends any wait), gets {@value #STOP_SECONDS} s to end its round,
 * is then interrupted, and is abandoned with a warning if it still runs {@value #INTERRUPT_SECONDS} s
 * later (a thread stuck in a call that ignores interrupts must not hang the shutdown).
 *
 * <p>Health: failed rounds in a row and the last failure ({@link FailureLog}, logged at the 1st and
 * every 10th failure), and how long the round in progress has been running, which tells a service
 * waiting for ever (for a pool connection, say) from an idle one.
 */
public abstract class Service implements Lifecycle {

    static final int STOP_SECONDS = 10;
    static final int INTERRUPT_SECONDS = 1;

    /** Guards what a subclass waits on; {@link #signal()} and {@link #stop()} signal {@link #changed}. */
    protected final ReentrantLock lock = new ReentrantLock();
    protected final Condition changed = lock.newCondition();

    private final String name;
    private final Backoff backoff;
    private final Logger log;
    private final FailureLog failures;
    /** Serializes start and stop, so that a start during a stop waits for the old thread to end. */
    private final ReentrantLock lifecycle = new ReentrantLock();
    private volatile boolean running;
    private volatile long roundStartedNanos;
    private Thread thread;

    protected Service(String name, Backoff backoff, Logger log) {
        this.name = name;
        this.backoff = backoff;
        this.log = log;
        this.failures = new FailureLog(name, log);
    }

    /** The loop: runs rounds while {@link #isRunning()}, and returns once it is false. */
    protected abstract void run();

    @Override
    public final void start() {
        lifecycle.lock();
        try {
            if (running) {
                return;
            }
            if (thread != null && thread.isAlive()) {
                // Its loop would run again beside the new one as soon as the running flag is set.
                throw new IllegalStateException("docket: " + name + " cannot start again: its previous thread, "
                        + "abandoned at stop, still runs");
            }
            beforeStart();
            running = true;
            thread = Thread.ofPlatform().daemon().name(name).start(this::run);
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public final void stop() {
        lifecycle.lock();
        try {
            if (!running) {
                return;
            }
            beforeStop();
            running = false;
            wake();
            Thread t = thread;
            if (t != Thread.currentThread()) {
                join(t);
            }
            roundStartedNanos = 0;
            afterStop();
        } finally {
            lifecycle.unlock();
        }
    }

    private void join(Thread t) {
        try {
            if (!t.join(Duration.ofSeconds(STOP_SECONDS))) {
                t.interrupt();
                if (!t.join(Duration.ofSeconds(INTERRUPT_SECONDS))) {
                    log.warn("docket: {} did not stop within {} s of its interrupt; abandoned", name,
                            INTERRUPT_SECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs in {@link #start()} before the thread starts, on the caller's thread. */
    protected void beforeStart() {
    }

    /** Runs in {@link #stop()} while the service still runs, on the caller's thread: a chance to drain. */
    protected void beforeStop() {
    }

    /** Runs in {@link #stop()} once the loop ended, on the caller's thread. */
    protected void afterStop() {
    }

    /** Ends any wait of the loop; {@link #stop()} calls it after clearing the running flag. */
    protected void wake() {
        signal();
    }

    /** Signals {@link #changed}. */
    protected final void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public final String name() {
        return name;
    }

    public final boolean isRunning() {
        return running;
    }

    /** Marks the start of a round of work, for {@link #roundNanos()}. */
    protected final void roundStarted() {
        long now = System.nanoTime();
        roundStartedNanos = now == 0 ? 1 : now;
    }

    /** Marks the end of the round of work in progress. */
    protected final void roundEnded() {
        roundStartedNanos = 0;
    }

    /** How long the round in progress has been running, 0 between rounds. */
    public final long roundNanos() {
        long started = roundStartedNanos;
        return started == 0 ? 0 : Math.max(1, System.nanoTime() - started);
    }

    /** Records a successful round. */
    protected final void succeeded() {
        failures.succeeded();
    }

    /** Records a failed round (logging it if due) and returns how long to back off before the next, in nanoseconds. */
    protected final long failed(Throwable e) {
        int n = failures.failed(e);
        return backoff.delayNanos(n, ConnectionLoss.isConnectionLost(e));
    }

    /** {@code nanos} ±20%. */
    protected final long jittered(long nanos) {
        return backoff.jittered(nanos);
    }

    /** Waits {@code nanos} unless the service stops first; signals do not shorten it. */
    protected final void pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        lock.lock();
        try {
            long left = nanos;
            while (running && left > 0) {
                changed.awaitNanos(left);
                left = deadline - System.nanoTime();
            }
        } catch (InterruptedException e) {
            // Only stop() interrupts, after clearing the running flag: the loop ends on its next check.
        } finally {
            lock.unlock();
        }
    }

    /** Rounds in a row that failed; 0 when the last round succeeded. */
    public final int consecutiveFailures() {
        return failures.consecutive();
    }

    /** The last failure, however long ago, or null. */
    public final FailureLog.Failure lastFailure() {
        return failures.last();
    }
}
