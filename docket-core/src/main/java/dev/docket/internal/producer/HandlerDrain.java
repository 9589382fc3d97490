package dev.docket.internal.producer;

import dev.docket.internal.completer.Completer;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.RunningJob;
import dev.docket.internal.service.Lifecycle;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The step of a worker's shutdown between "no more claims" and "write every outcome": running
 * handlers get until the grace deadline to finish; the rest are interrupted and their jobs given
 * back to the queue at once (not after their lease). A handler that ignores the interrupt for
 * {@code interruptWait} more is abandoned: its job is released anyway and whatever it reports later
 * is fenced out. Starting it does nothing.
 */
public final class HandlerDrain implements Lifecycle {

    private static final Logger log = LoggerFactory.getLogger(HandlerDrain.class);

    private final List<Producer> producers;
    private final InFlight inFlight;
    private final Completer completer;
    private final Duration grace;
    private final Duration interruptWait;
    private volatile long deadlineNanos;
    private volatile boolean deadlineSet;

    public HandlerDrain(List<Producer> producers, InFlight inFlight, Completer completer, Duration grace,
                        Duration interruptWait) {
        this.producers = List.copyOf(producers);
        this.inFlight = inFlight;
        this.completer = completer;
        this.grace = grace;
        this.interruptWait = interruptWait;
    }

    /** Starts the grace period now, when the shutdown begins, rather than when this step is reached. */
    public void shutdownBegins() {
        deadlineNanos = System.nanoTime() + grace.toNanos();
        deadlineSet = true;
    }

    @Override
    public void start() {
    }

    @Override
    public void stop() {
        if (!deadlineSet) {
            shutdownBegins();
        }
        try {
            if (!awaitHandlers(deadlineNanos)) {
                releaseUnfinished();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            releaseUnfinished();
        }
    }

    private boolean awaitHandlers(long deadline) throws InterruptedException {
        for (Producer p : producers) {
            if (!p.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                return false;
            }
        }
        return true;
    }

    private void releaseUnfinished() {
        List<RunningJob> running = inFlight.all().stream().filter(RunningJob::isHandlerRunning).toList();
        running.forEach(RunningJob::release);
        try {
            awaitHandlers(System.nanoTime() + interruptWait.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (RunningJob job : running) {
            if (job.isHandlerRunning()) {
                log.warn("docket: job {} ({}) ignored the interrupt; releasing it anyway", job.fence().id(), job.job().kind());
                job.markLost();
                completer.submit(new Outcome.Released(job.fence(), false), written -> inFlight.remove(job));
            }
        }
    }
}
