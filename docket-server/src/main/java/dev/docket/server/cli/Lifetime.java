package dev.docket.server.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * How a long-running command (serve, worker, demo) lives: it runs until SIGTERM or SIGINT (Ctrl-C)
 * or {@link #stop()}, then closes what it started, and only then lets the JVM exit. The shutdown
 * hook waits for the command's cleanup, up to {@link #CLEANUP_LIMIT_SECONDS} unless the command
 * allows more ({@link #allowCleanup}).
 */
final class Lifetime {

    /** The longest the JVM waits at a signal for the command to close what it started, by default. */
    static final int CLEANUP_LIMIT_SECONDS = 90;

    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private volatile Duration cleanupLimit = Duration.ofSeconds(CLEANUP_LIMIT_SECONDS);
    private final CountDownLatch cleanedUp = new CountDownLatch(1);
    private Thread hook;

    /** What a long-running command does while it lives: start, await a stop, close what it started. */
    interface Body {
        void run() throws Exception;
    }

    /**
     * Runs {@code body}, which starts what the command serves, awaits a stop and closes what it
     * started, with signals caught for the whole of it: a SIGTERM or SIGINT ends in {@code body}'s
     * own cleanup rather than the JVM exiting under it.
     *
     * @param name names the shutdown hook's thread ({@code docket-NAME-shutdown})
     * @return 0, the exit status of a command that stopped as asked
     */
    int run(String name, Body body) throws Exception {
        begin(name);
        try {
            body.run();
        } finally {
            end();
        }
        return 0;
    }

    /** Starts listening for signals; called before anything that must be closed is started. */
    private synchronized void begin(String name) {
        hook = new Thread(() -> {
            stopRequested.countDown();
            try {
                cleanedUp.await(cleanupLimit.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "docket-" + name + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Lets the shutdown hook wait up to {@code limit} for the cleanup, when that is longer than
     * {@link #CLEANUP_LIMIT_SECONDS}: a worker draining jobs for its whole shutdown grace.
     */
    void allowCleanup(Duration limit) {
        if (limit.compareTo(cleanupLimit) > 0) {
            cleanupLimit = limit;
        }
    }

    /** How long the shutdown hook waits for the cleanup. */
    Duration cleanupLimit() {
        return cleanupLimit;
    }

    /** Blocks until a signal or {@link #stop()}. */
    void awaitStop() throws InterruptedException {
        stopRequested.await();
    }

    /** Waits up to {@code timeout} for a signal or {@link #stop()}; true if one came. */
    boolean awaitStop(Duration timeout) throws InterruptedException {
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
    private synchronized void end() {
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
