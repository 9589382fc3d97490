package dev.docket.internal.completer;

import dev.docket.internal.db.Fence;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.Service;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes attempt outcomes in batches: whatever piled up while the previous batch was being written
 * goes out as one transaction with one fenced statement per kind of outcome. A write that fails
 * (database down, connection lost) is retried with backoff until it succeeds or the worker stops;
 * the jobs it held are rescued after their leases expire if it never does. {@link #stop()} first
 * waits (up to the drain timeout) until every outcome submitted so far is written.
 */
public final class Completer extends Service {

    private static final Logger log = LoggerFactory.getLogger(Completer.class);
    /** Outcomes resume within about two seconds after an outage. */
    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(2));
    /** Put in the queue by {@link #wake()} so that a stop need not wait for the poll to time out. */
    private static final Pending WAKE_UP = new Pending(null, written -> { });

    /** One outcome and what to do once it is written ({@code true}) or found fenced out ({@code false}). */
    private record Pending(Outcome outcome, Consumer<Boolean> written) {
    }

    /** Writes one batch in one transaction; returns the fences that matched. */
    private interface Writer {
        Set<Fence> write(List<Outcome> outcomes) throws SQLException;
    }

    /** The worker's fenced outcome statements, bound to its id and write settings. */
    private final Writer writer;
    private final int maxBatch;
    private final Duration drainTimeout;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong settled = new AtomicLong();
    private final Object settledMonitor = new Object();

    /**
     * @param asyncCommit  whether outcome transactions commit without waiting for their WAL flush
     * @param maxBatch     the most outcomes one transaction writes
     * @param drainTimeout how long {@link #stop()} waits for the outcomes submitted before it
     */
    public Completer(Database store, String workerId, boolean keepHistory, boolean asyncCommit, int maxBatch,
                     Duration drainTimeout) {
        super("docket-completer-" + workerId, BACKOFF, log);
        this.writer = outcomes -> store.outcomes().writeOutcomes(workerId, outcomes, keepHistory, asyncCommit);
        this.maxBatch = maxBatch;
        this.drainTimeout = drainTimeout;
    }

    /** Hands an outcome to be written; {@code written} runs on the completer thread afterwards. */
    public void submit(Outcome outcome, Consumer<Boolean> written) {
        submitted.incrementAndGet();
        queue.add(new Pending(outcome, written));
    }

    /** Waits until every outcome submitted so far is written or discarded; false on timeout. */
    public boolean awaitSettled(Duration timeout) throws InterruptedException {
        long target = submitted.get();
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (settledMonitor) {
            while (settled.get() < target) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(settledMonitor, left);
            }
        }
        return true;
    }

    @Override
    protected void beforeStop() {
        try {
            if (!awaitSettled(drainTimeout)) {
                log.warn("docket: completer stopped with {} outcomes unwritten; their jobs run again after their leases expire",
                        backlog());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void wake() {
        queue.add(WAKE_UP);
    }

    /** Outcomes submitted and not yet written. */
    public long backlog() {
        return submitted.get() - settled.get();
    }

    void runOnce(List<Pending> batch) throws SQLException {
        List<Outcome> outcomes = batch.stream().map(Pending::outcome).toList();
        Set<Fence> applied = writer.write(outcomes);
        for (Pending p : batch) {
            boolean ok = applied.contains(p.outcome().fence());
            if (!ok) {
                log.warn("docket: job {} attempt {}: lease lost before its outcome ({}) was written; outcome discarded",
                        p.outcome().fence().id(), p.outcome().fence().attempt(), p.outcome().getClass().getSimpleName());
            }
            try {
                p.written().accept(ok);
            } catch (RuntimeException e) {
                log.warn("docket: completion callback failed: {}", e.toString());
            }
        }
    }

    @Override
    protected void run() {
        List<Pending> batch = new ArrayList<>(maxBatch);
        while (isRunning() || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    Pending first = queue.take();
                    if (first != WAKE_UP) {
                        batch.add(first);
                    }
                    queue.drainTo(batch, maxBatch - batch.size());
                    // A wake-up drained with the outcomes is dropped: it only ends a wait.
                    batch.removeIf(p -> p == WAKE_UP);
                    if (batch.isEmpty()) {
                        continue;
                    }
                }
                roundStarted();
                runOnce(batch);
                markSettled(batch.size());
                batch.clear();
                succeeded();
            } catch (InterruptedException e) {
                if (!isRunning()) {
                    return;
                }
            } catch (SQLException | RuntimeException e) {
                long backoff = failed(e);
                if (!isRunning()) {
                    return;
                }
                roundEnded();
                pause(backoff);
            } finally {
                roundEnded();
            }
        }
    }

    private void markSettled(int count) {
        settled.addAndGet(count);
        synchronized (settledMonitor) {
            settledMonitor.notifyAll();
        }
    }
}
