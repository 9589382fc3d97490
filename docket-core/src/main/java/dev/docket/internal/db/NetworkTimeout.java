package dev.docket.internal.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The longest Docket waits for the database to answer on a connection before it gives the connection
 * up as dead ({@link Connection#setNetworkTimeout}, the driver's socket read timeout). A connection
 * whose peer vanished without a reset (a cut network, a host that died, a NAT that forgot it) never
 * errors by itself: without this bound a heartbeat or a claim would wait on it forever. It is set on
 * each connection Docket borrows and the previous value restored before the connection goes back:
 * a few socket-option calls per borrow (not per job: claims and outcomes borrow once per batch), no
 * statement and no round trip. Zero leaves the connection's own
 * setting (for example PgJDBC's {@code socketTimeout}) alone.
 */
public final class NetworkTimeout {

    /** Leaves connections as the pool made them. */
    public static final NetworkTimeout NONE = new NetworkTimeout(Duration.ZERO);
    /** PgJDBC applies the timeout to the socket at once and never runs anything on this executor. */
    private static final Executor DIRECT = Runnable::run;

    private final int millis;

    /** @param timeout zero for none, else at least a millisecond and at most {@link Integer#MAX_VALUE} ms */
    public NetworkTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0
                || (!timeout.isZero() && timeout.compareTo(Duration.ofMillis(1)) < 0)) {
            throw new IllegalArgumentException("networkTimeout must be zero (none) or from 1 ms to "
                    + Integer.MAX_VALUE + " ms, was " + timeout);
        }
        this.millis = (int) timeout.toMillis();
    }

    /** Sets the timeout on {@code c}; returns the value {@link #restore} puts back, or -1 when nothing changed. */
    public int apply(Connection c) throws SQLException {
        if (millis == 0) {
            return -1;
        }
        int previous = c.getNetworkTimeout();
        if (previous == millis) {
            return -1;
        }
        c.setNetworkTimeout(DIRECT, millis);
        return previous;
    }

    /** Puts back what {@link #apply} replaced, so that a pool that does not reset it hands the connection on unchanged. */
    public void restore(Connection c, int previous) throws SQLException {
        if (previous >= 0) {
            c.setNetworkTimeout(DIRECT, previous);
        }
    }
}
