package dev.docket.internal.service;

import java.lang.reflect.Method;
import java.util.List;
import java.util.OptionalInt;
import javax.sql.DataSource;

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
