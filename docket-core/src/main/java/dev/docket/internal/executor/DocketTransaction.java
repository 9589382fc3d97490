package dev.docket.internal.executor;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;

/**
 * The connection a transactional handler sees: its own statements and savepoints go through; what
 * would end or escape Docket's transaction (commit, a whole rollback, auto-commit, close, abort) is
 * refused, because the job's outcome is still to be written in it.
 */
final class DocketTransaction implements InvocationHandler {

    private static final Set<String> REFUSED = Set.of("commit", "setAutoCommit", "close", "abort");

    private final Connection connection;

    private DocketTransaction(Connection connection) {
        this.connection = connection;
    }

    static Connection of(Connection connection) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                new DocketTransaction(connection));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (REFUSED.contains(name) || name.equals("rollback") && method.getParameterCount() == 0) {
            throw new IllegalStateException("a transactional handler's connection belongs to Docket, which "
                    + "commits or rolls back its transaction together with the job's outcome: " + name + " is refused");
        }
        try {
            return method.invoke(connection, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
