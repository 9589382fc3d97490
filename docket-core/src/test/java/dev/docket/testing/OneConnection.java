package dev.docket.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * A data source that hands out one connection every time, with no pool in between: closing the
 * handle leaves the connection open, and nothing resets what the code under test left on it.
 */
public final class OneConnection {

    private OneConnection() {
    }

    public static DataSource handingOut(Connection connection) {
        Connection handle = (Connection) Proxy.newProxyInstance(OneConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("close")) {
                        return null;
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        return (DataSource) Proxy.newProxyInstance(OneConnection.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        return handle;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
