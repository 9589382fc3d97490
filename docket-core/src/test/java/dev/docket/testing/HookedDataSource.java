package dev.docket.testing;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that hands out another one's connections, running a hook before each is borrowed
 * (to hold borrowers back, say) and one on each connection before it is handed out (to set a
 * session setting, say). The hooks see every borrower: Docket's enqueues, claims and listener alike.
 */
public final class HookedDataSource implements DataSource {

    /** Runs before a connection is borrowed; may block. */
    @FunctionalInterface
    public interface BeforeBorrow {
        void run() throws SQLException;
    }

    /** Runs on each borrowed connection before it is handed out. */
    @FunctionalInterface
    public interface OnBorrow {
        void accept(Connection connection) throws SQLException;
    }

    private final DataSource delegate;
    private final BeforeBorrow before;
    private final OnBorrow on;

    public HookedDataSource(DataSource delegate, BeforeBorrow before, OnBorrow on) {
        this.delegate = delegate;
        this.before = before;
        this.on = on;
    }

    /**
     * Lets borrowers through only while the latch in {@code gate} is open: put a closed latch in it
     * and every borrower waits, as on a pool whose connections are all taken.
     */
    public static HookedDataSource gated(DataSource delegate, AtomicReference<CountDownLatch> gate) {
        return new HookedDataSource(delegate, () -> {
            try {
                gate.get().await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted at the gate", e);
            }
        }, c -> { });
    }

    /** Runs {@code sql} (a SET, say) on every connection handed out. */
    public static HookedDataSource withSessionSetting(DataSource delegate, String sql) {
        return new HookedDataSource(delegate, () -> { }, c -> {
            try (var st = c.createStatement()) {
                st.execute(sql);
            }
        });
    }

    @Override
    public Connection getConnection() throws SQLException {
        before.run();
        Connection c = delegate.getConnection();
        try {
            on.accept(c);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("HookedDataSource hands out the delegate's default connections only");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        return delegate.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || delegate.isWrapperFor(type);
    }
}
