package dev.docket.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a connection and counts the statements prepared or created on it, so a test can tell
 * "one statement for many rows" from "one statement per row" without pg_stat_statements.
 */
public final class CountingConnection {

    private static final Set<String> STATEMENT_FACTORIES = Set.of("prepareStatement", "createStatement", "prepareCall");

    private final Connection connection;
    private final AtomicInteger statements = new AtomicInteger();

    public CountingConnection(Connection target) {
        this.connection = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (STATEMENT_FACTORIES.contains(method.getName())) {
                        statements.incrementAndGet();
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** The counting connection to hand to the code under test. */
    public Connection connection() {
        return connection;
    }

    /** Statements prepared or created through {@link #connection()} so far. */
    public int statements() {
        return statements.get();
    }
}
