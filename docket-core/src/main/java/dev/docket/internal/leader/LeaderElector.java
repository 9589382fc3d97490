package dev.docket.internal.leader;

import dev.docket.internal.db.JobStore;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's claim on a cluster-wide role (the maintainer) in the {@code leaders} table:
 * every round it takes the role if it is free or its holder's lease ran out, or renews it if this
 * node holds it. It calls {@link Listener#elected} when it becomes leader and {@link Listener#deposed}
 * when it stops being one: when another node holds the role, when renewing keeps failing for so long
 * that its lease may have run out, and when it stops (it then resigns, so the next node takes over at
 * its next round instead of after the lease).
 */
public final class LeaderElector extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

    /** What to do when this node gains or loses the role; called on the elector's thread. */
    public interface Listener {
        void elected(long term);

        void deposed();
    }

    private final JobStore store;
    private final String role;
    private final String nodeId;
    private final Duration ttl;
    private final Listener listener;
    private volatile boolean leader;
    private volatile long term;
    private long lastRenewedNanos;

    /** Renews every {@code ttl / 3}, so two failed rounds in a row still leave it the lease. */
    public LeaderElector(JobStore store, String role, String nodeId, Duration ttl, Listener listener) {
        super("docket-leader-" + role, ttl.dividedBy(3), log);
        this.store = store;
        this.role = role;
        this.nodeId = nodeId;
        this.ttl = ttl;
        this.listener = listener;
    }

    public boolean isLeader() {
        return leader;
    }

    /** The term of this node's leadership, or 0 while it is not the leader. */
    public long term() {
        return leader ? term : 0;
    }

    @Override
    public void runOnce() throws SQLException {
        Optional<Long> elected;
        try {
            elected = store.leaderAttemptElect(role, nodeId, ttl, null);
        } catch (SQLException e) {
            // Without a renewal, the lease may lapse and another node take over: step down first.
            if (leader && System.nanoTime() - lastRenewedNanos > ttl.toNanos() * 2 / 3) {
                log.warn("docket: {} could not renew its {} lease; stepping down", nodeId, role);
                stepDown();
            }
            throw e;
        }
        if (elected.isPresent()) {
            lastRenewedNanos = System.nanoTime();
            if (!leader || term != elected.get()) {
                if (leader) {
                    stepDown();
                }
                term = elected.get();
                leader = true;
                log.info("docket: {} is now the {} leader (term {})", nodeId, role, term);
                listener.elected(term);
            }
        } else if (leader) {
            log.info("docket: {} lost the {} role to another node", nodeId, role);
            stepDown();
        }
    }

    private void stepDown() {
        leader = false;
        listener.deposed();
    }

    @Override
    protected void afterStop() {
        if (leader) {
            stepDown();
        }
        try {
            store.leaderResign(role, nodeId);
        } catch (SQLException e) {
            log.debug("docket: resigning the {} role failed; it lapses with its lease: {}", role, e.toString());
        }
    }
}
