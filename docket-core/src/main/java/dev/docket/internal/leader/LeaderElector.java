package dev.docket.internal.leader;

import dev.docket.internal.db.Database;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's claim on a cluster-wide role (the maintainer) in the {@code leaders} table:
 * every round it takes the role if it is free or its holder's lease ran out, or renews it if this
 * node holds it. It calls {@link Listener#elected} when it becomes leader and {@link Listener#deposed}
 * when it stops being one: when another node holds the role, when no renewal succeeded for 2/3 of
 * the lease (it steps down before the lease can run out and another node take over), and when it
 * stops (it then resigns, so the next node takes over at its next round instead of after the lease).
 */
public final class LeaderElector extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

    /** What to do when this node gains or loses the role; called on the elector's thread. */
    public interface Listener {
        void elected(long term);

        void deposed();
    }

    private final Database store;
    private final String role;
    private final String nodeId;
    private final Duration ttl;
    private final Listener listener;
    private final ScheduledExecutorService watchdog;
    private volatile boolean leader;
    private volatile long term;
    private volatile long deadlineNanos;
    private ScheduledFuture<?> watch;

    /** Renews every {@code ttl / 3}; leadership lapses locally at 2/3 of the ttl without a renewal. */
    public LeaderElector(Database store, String role, String nodeId, Duration ttl, Listener listener) {
        // No backoff: a leader must renew on time, and a candidate should take over as soon as it can.
        super("docket-leader-" + role, ttl.dividedBy(3), ttl.dividedBy(3), log);
        this.store = store;
        this.role = role;
        this.nodeId = nodeId;
        this.ttl = ttl;
        this.listener = listener;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r ->
                Thread.ofPlatform().daemon().name("docket-leader-watchdog-" + role).unstarted(r));
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
            synchronized (this) {
                deadlineNanos = sent + ttl.toNanos() * 2 / 3;
                if (!leader || term != elected.get()) {
                    if (leader) {
                        stepDown("its term changed");
                    }
                    term = elected.get();
                    leader = true;
                    log.info("docket: {} is now the {} leader (term {})", nodeId, role, term);
                    listener.elected(term);
                }
                armWatchdog();
            }
        } else if (leader) {
            stepDown("another node holds the role");
        }
    }

    private void armWatchdog() {
        if (watch != null) {
            watch.cancel(false);
        }
        long delay = deadlineNanos - System.nanoTime();
        watch = watchdog.schedule(() -> {
            synchronized (this) {
                if (leader && System.nanoTime() - deadlineNanos >= 0) {
                    stepDown("its lease could not be renewed in time");
                }
            }
        }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    }

    private synchronized void stepDown(String why) {
        if (!leader) {
            return;
        }
        leader = false;
        log.info("docket: {} is no longer the {} leader: {}", nodeId, role, why);
        listener.deposed();
    }

    @Override
    protected void afterStop() {
        watchdog.shutdownNow();
        stepDown("it stopped");
        try {
            store.leaders().resign(role, nodeId);
        } catch (SQLException e) {
            log.debug("docket: resigning the {} role failed; it lapses with its lease: {}", role, e.toString());
        }
    }
}
