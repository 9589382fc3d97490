package dev.docket.internal.leader;

import dev.docket.internal.db.Database;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's claim on a cluster-wide role (the maintainer) in the {@code leaders} table:
 * every round it takes the role if it is free or its holder's lease ran out, or renews it if this
 * node holds it. It calls {@link Listener#elected} when it becomes leader and {@link Listener#deposed}
 * when it stops being one: when another node holds the role, when no renewal succeeded for 2/3 of
 * the lease (it steps down before the lease can run out and another node take over), and when it
 * stops (it then resigns, so the next node takes over at its next round instead of after the lease).
 * A stopped elector can be started again; it then takes part in the election anew.
 *
 * <p>The elector's state (leader, term, deadline) is guarded by its monitor, which is held only to
 * read and change that state, never while the listener runs: a listener that stops the maintainer
 * (and waits for its round) cannot hold up a renewal, a watchdog step-down or {@link #isLeader()}.
 * Listener calls are queued under the monitor in the order of the changes and delivered after it
 * is released, one at a time and in that order, before the call that caused them returns.
 */
public final class LeaderElector extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

    /** What to do when this node gains or loses the role; never called while the elector's monitor is held. */
    public interface Listener {
        void elected(long term);

        void deposed();
    }

    private final Database store;
    private final String role;
    private final String nodeId;
    private final Duration ttl;
    private final Listener listener;
    /** Listener calls not yet delivered, in the order of the changes; guarded by {@code this}. */
    private final Queue<Runnable> transitions = new ArrayDeque<>();
    /** Held while delivering listener calls, so that they run one at a time and in order. */
    private final ReentrantLock delivery = new ReentrantLock();
    private volatile boolean leader;
    private volatile long term;
    private volatile long deadlineNanos;
    private ScheduledExecutorService watchdog;
    private ScheduledFuture<?> watch;

    /** Renews every {@code ttl / 3}; leadership lapses locally at 2/3 of the ttl without a renewal. */
    public LeaderElector(Database store, String role, String nodeId, Duration ttl, Listener listener) {
        // The backoff keeps the cadence: a leader must renew on time, and a candidate should take over as soon as it can.
        super("docket-leader-" + role, ttl.dividedBy(3), Backoff.keepingCadence(ttl.dividedBy(3)), log);
        this.store = store;
        this.role = role;
        this.nodeId = nodeId;
        this.ttl = ttl;
        this.listener = listener;
    }

    /** Whether this node holds the role now: elected, and its last renewal recent enough. */
    public boolean isLeader() {
        return leader && System.nanoTime() - deadlineNanos < 0;
    }

    /** The term of this node's leadership, or 0 while it is not the leader. */
    public long term() {
        return isLeader() ? term : 0;
    }

    /**
     * One round. The local deadline is counted from before the renewal was sent, and a watchdog steps
     * down at it, so a renewal that hangs (pool exhausted, half-open connection) cannot keep this node
     * acting as leader after another one may have taken over.
     */
    @Override
    public void runOnce() throws SQLException {
        long sent = System.nanoTime();
        Optional<Long> elected = store.leaders().attemptElect(role, nodeId, ttl, null);
        if (elected.isPresent()) {
            renewed(sent, elected.get());
        } else {
            stepDown("another node holds the role");
        }
        deliverTransitions();
    }

    private synchronized void renewed(long sentNanos, long electedTerm) {
        deadlineNanos = sentNanos + ttl.toNanos() * 2 / 3;
        if (!leader || term != electedTerm) {
            if (leader) {
                stepDownLocked("its term changed");
            }
            term = electedTerm;
            leader = true;
            log.info("docket: {} is now the {} leader (term {})", nodeId, role, electedTerm);
            transitions.add(() -> listener.elected(electedTerm));
        }
        armWatchdog();
    }

    private void armWatchdog() {
        if (watch != null) {
            watch.cancel(false);
        }
        if (watchdog == null) {
            watchdog = Executors.newSingleThreadScheduledExecutor(r ->
                    Thread.ofPlatform().daemon().name("docket-leader-watchdog-" + role).unstarted(r));
        }
        long delay = deadlineNanos - System.nanoTime();
        watch = watchdog.schedule(() -> {
            synchronized (this) {
                if (leader && System.nanoTime() - deadlineNanos >= 0) {
                    stepDownLocked("its lease could not be renewed in time");
                }
            }
            deliverTransitions();
        }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    }

    private synchronized void stepDown(String why) {
        stepDownLocked(why);
    }

    private void stepDownLocked(String why) {
        if (!leader) {
            return;
        }
        leader = false;
        log.info("docket: {} is no longer the {} leader: {}", nodeId, role, why);
        transitions.add(listener::deposed);
    }

    /** Delivers the queued listener calls in order; never called with the monitor held. */
    private void deliverTransitions() {
        delivery.lock();
        try {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = transitions.poll();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        } finally {
            delivery.unlock();
        }
    }

    @Override
    protected void afterStop() {
        synchronized (this) {
            if (watchdog != null) {
                // A restart creates a new one at its first election.
                watchdog.shutdownNow();
                watchdog = null;
            }
            watch = null;
        }
        stepDown("it stopped");
        deliverTransitions();
        try {
            store.leaders().resign(role, nodeId);
        } catch (SQLException e) {
            log.debug("docket: resigning the {} role failed; it lapses with its lease: {}", role, e.toString());
        }
    }
}
