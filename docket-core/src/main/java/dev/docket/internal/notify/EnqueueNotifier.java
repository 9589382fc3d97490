package dev.docket.internal.notify;

import dev.docket.internal.db.Database;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which enqueues send a {@code pg_notify}. NOTIFY takes a lock that serializes commits,
 * so at high insert rates one notification per row would throttle enqueue; this sends at most one
 * per queue per {@code window} from this process for enqueues in their own (autocommit)
 * transaction. Such an enqueue inside the window is covered by a trailing notification at the
 * window's end, so the last job of a burst wakes workers too. An enqueue in an explicit transaction
 * always notifies inside it: a trailing notification could arrive before that transaction commits
 * and wake workers to nothing. PostgreSQL sends one notification per channel and payload per
 * transaction however many jobs it inserts.
 */
public final class EnqueueNotifier implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EnqueueNotifier.class);

    private final Database store;
    private final long windowNanos;
    private final ConcurrentHashMap<String, Long> lastSent = new ConcurrentHashMap<>();
    private final Set<String> trailing = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer;

    public EnqueueNotifier(Database store, Duration window) {
        this.store = store;
        this.windowNanos = window.toNanos();
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "docket-enqueue-notifier");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Queues the notifications that the enqueue of jobs on {@code readyQueues} calls for, on the
     * enqueue's connection so that they are delivered when its transaction commits.
     */
    public void afterInsert(Connection c, Set<String> readyQueues) throws SQLException {
        if (readyQueues.isEmpty()) {
            return;
        }
        if (!c.getAutoCommit()) {
            long t = System.nanoTime();
            readyQueues.forEach(q -> lastSent.put(q, t));
            store.queues().notify(c, readyQueues);
            return;
        }
        List<String> now = new ArrayList<>(readyQueues.size());
        long t = System.nanoTime();
        for (String queue : readyQueues) {
            Long last = lastSent.get(queue);
            if (last == null || t - last >= windowNanos) {
                if (last == null ? lastSent.putIfAbsent(queue, t) == null : lastSent.replace(queue, last, t)) {
                    now.add(queue);
                    continue;
                }
            }
            if (trailing.add(queue)) {
                try {
                    timer.schedule(() -> sendTrailing(queue), windowNanos, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closed) {
                    // The Docket was closed: no more trailing notifications, so this one goes out now.
                    trailing.remove(queue);
                    now.add(queue);
                }
            }
        }
        store.queues().notify(c, now);
    }

    private void sendTrailing(String queue) {
        trailing.remove(queue);
        lastSent.put(queue, System.nanoTime());
        try {
            store.queues().notify(List.of(queue));
        } catch (SQLException e) {
            log.debug("docket: trailing notification for queue {} failed; polling will pick the jobs up: {}",
                    queue, e.getMessage());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
