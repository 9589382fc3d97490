package dev.docket.internal.completer;

import dev.docket.internal.db.ConnectionLoss;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Outcome;
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
 * the jobs it held are rescued after their leases expire if it never does.
 */
public final class Completer {

    private static final Logger log = LoggerFactory.getLogger(Completer.class);

    /** One outcome and what to do once it is written ({@code true}) or found fenced out ({@code false}). */
    private record Pending(Outcome outcome, Consumer<Boolean> written) {
    }

    private final Database store;
    private final String workerId;
    private final boolean keepHistory;
    private final int maxBatch;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong settled = new AtomicLong();
    private final Object settledMonitor = new Object();
    private volatile boolean running;
    private volatile int consecutiveFailures;
    private Thread thread;

    public Completer(Database store, String workerId, boolean keepHistory, int maxBatch) {
        this.store = store;
        this.workerId = workerId;
        this.keepHistory = keepHistory;
        this.maxBatch = maxBatch;
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().daemon().name("docket-completer-" + workerId).start(this::loop);
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

    /** Writes what is pending (waiting up to {@code timeout}), then stops. Safe to call twice. */
    public void stop(Duration timeout) {
        Thread t;
        synchronized (this) {
            if (!running) {
                return;
            }
            t = thread;
        }
        try {
            if (!awaitSettled(timeout)) {
                log.warn("docket: completer stopped with {} outcomes unwritten; their jobs run again after their leases expire",
                        submitted.get() - settled.get());
            }
            running = false;
            t.interrupt();
            t.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public int consecutiveFailures() {
        return consecutiveFailures;
    }

    /** Outcomes submitted and not yet written. */
    public long backlog() {
        return submitted.get() - settled.get();
    }

    void runOnce(List<Pending> batch) throws SQLException {
        List<Outcome> outcomes = batch.stream().map(Pending::outcome).toList();
        Set<Fence> applied = store.outcomes().writeOutcomes(workerId, outcomes, keepHistory);
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

    private void loop() {
        List<Pending> batch = new ArrayList<>(maxBatch);
        while (running || !batch.isEmpty()) {
            try {
                if (batch.isEmpty()) {
                    Pending first = queue.poll(200, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    queue.drainTo(batch, maxBatch - 1);
                }
                runOnce(batch);
                markSettled(batch.size());
                batch.clear();
                consecutiveFailures = 0;
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
            } catch (SQLException | RuntimeException e) {
                int failures = ++consecutiveFailures;
                if (failures == 1 || failures % 10 == 0) {
                    log.warn("docket: writing {} job outcomes failed ({} in a row), retrying: {}",
                            batch.size(), failures, e.toString());
                }
                if (!running) {
                    return;
                }
                try {
                    // A lost connection is retried at once: the next attempt gets another from the pool.
                    Thread.sleep(ConnectionLoss.isConnectionLost(e) && failures <= 20 ? 50L
                            : Math.min(2_000L, 50L << Math.min(failures, 6)));
                } catch (InterruptedException stop) {
                    if (!running) {
                        return;
                    }
                }
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
