package dev.docket.internal.service;

import java.lang.reflect.Method;
import java.util.List;
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.slf4j.Logger;

/**
 * The most connections a pool hands out at once, where the pool says: HikariCP
 * ({@code getMaximumPoolSize}), Apache DBCP 2 ({@code getMaxTotal}), c3p0 ({@code getMaxPoolSize})
 * and Tomcat JDBC ({@code getMaxActive}) have a public getter for it. Read by reflection, so that
 * Docket depends on none of them.
 */
public final class PoolSize {

    private static final List<String> GETTERS =
            List.of("getMaximumPoolSize", "getMaxTotal", "getMaxPoolSize", "getMaxActive");

    private PoolSize() {
    }

    /**
     * Refuses a pool known to be too small for a worker to make any progress, and warns about one
     * smaller than {@code needed}; a pool that does not tell its size passes (a {@link StallWatch}
     * reports it if it starves the worker).
     *
     * @param needed           connections the worker's services may hold at once
     * @param listenerOnPool   whether the worker's listener holds one of the pool's connections for its life
     * @throws IllegalStateException if the listener would hold the pool's last connection
     */
    public static void check(DataSource pool, int needed, boolean listenerOnPool, Logger log) {
        OptionalInt size = of(pool);
        if (size.isEmpty()) {
            return;
        }
        int max = size.getAsInt();
        if (listenerOnPool && max < 2) {
            throw new IllegalStateException("docket: the worker's pool has " + max + " connection, and the worker's "
                    + "listener would hold it for the worker's life, leaving none to claim jobs, extend leases or "
                    + "write outcomes: give the pool " + needed + " connections (queues + 6, see Worker), "
                    + "or give the worker a listenerDataSource(...), or listen(false)");
        }
        if (max < needed) {
            log.warn("docket: the worker's pool has {} connections, fewer than the {} it needs (queues + 6, see Worker): "
                    + "claims, heartbeats and outcomes will wait for each other's connections", max, needed);
        }
    }

    /** The pool's maximum size, or empty when it does not say (or says "unbounded" with a value below 1). */
    public static OptionalInt of(DataSource dataSource) {
        for (String getter : GETTERS) {
            try {
                Method m = dataSource.getClass().getMethod(getter);
                if (m.getReturnType() == int.class && m.invoke(dataSource) instanceof Integer size) {
                    return size > 0 ? OptionalInt.of(size) : OptionalInt.empty();
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // Not this pool's getter, or not accessible: try the next.
            }
        }
        return OptionalInt.empty();
    }
}
