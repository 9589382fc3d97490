package dev.docket.server.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How a long-running command (serve, worker, demo) lives: it runs until SIGTERM or SIGINT (Ctrl-C)
 * or {@link #stop()}, then closes what it started, and only then lets the JVM exit. The shutdown
 * hook waits for the command's cleanup, up to {@link #CLEANUP_LIMIT_SECONDS}.
 */
final class Lifetime {

    /** The longest the JVM waits at a signal for the command to close what it started. */
    static final int CLEANUP_LIMIT_SECONDS = 90;

    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch cleanedUp = new CountDownLatch(1);
    private Thread hook;

    /** Starts listening for signals; call before starting anything that must be closed. */
    synchronized void begin(String name) {
        hook = new Thread(() -> {
            stopRequested.countDown();
            try {
                cleanedUp.await(CLEANUP_LIMIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "docket-" + name + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Blocks until a signal or {@link #stop()}. */
    void awaitStop() throws InterruptedException {
        stopRequested.await();
    }

    /** Waits up to {@code timeout} for a signal or {@link #stop()}; true if one came. */
    boolean awaitStop(java.time.Duration timeout) throws InterruptedException {
        return stopRequested.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Asks the command to stop, as SIGTERM would. */
    void stop() {
        stopRequested.countDown();
    }

    boolean stopRequested() {
        return stopRequested.getCount() == 0;
    }

    /** The command has closed everything: the JVM may exit. */
    synchronized void end() {
        cleanedUp.countDown();
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down already: the hook is running and now returns.
            }
            hook = null;
        }
    }
}
