package dev.docket.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The one way Docket uses JDBC. It borrows a connection, sets its auto-commit explicitly (on for
 * one-statement work, off for a transaction, which it commits or rolls back) and gives the
 * connection back with the auto-commit it had, whatever the pool's default: a write never depends
 * on the pool committing it. Parameters are bound in order through {@link Params}; rows are read by
 * column name. The static methods run one statement on a connection the caller owns (its
 * transaction, never committed or closed here). A borrowed connection also gets Docket's
 * {@link NetworkTimeout} for as long as it is borrowed.
 */
public final class Jdbc {

    /** Work on a borrowed connection. */
    @FunctionalInterface
    public interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Binds a statement's parameters, in the order of its {@code ?}s. */
    @FunctionalInterface
    public interface Binder {
        void bind(Params p) throws SQLException;
    }

    /** Reads the current row, by column name. */
    @FunctionalInterface
    public interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Consumes the current row, by column name. */
    @FunctionalInterface
    public interface RowConsumer {
        void accept(ResultSet rs) throws SQLException;
    }

    /** For statements without parameters. */
    public static final Binder NO_PARAMETERS = p -> { };

    private final DataSource dataSource;
    private final NetworkTimeout networkTimeout;

    public Jdbc(DataSource dataSource) {
        this(dataSource, NetworkTimeout.NONE);
    }

    public Jdbc(DataSource dataSource, NetworkTimeout networkTimeout) {
        this.dataSource = dataSource;
        this.networkTimeout = networkTimeout;
    }

    public NetworkTimeout networkTimeout() {
        return networkTimeout;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** Runs {@code work} on a borrowed connection in auto-commit mode: each statement commits by itself. */
    public <T> T autoCommit(Work<T> work) throws SQLException {
        return borrow(false, work);
    }

    /** Runs {@code work} as one transaction on a borrowed connection: committed if it returns, rolled back if it throws. */
    public <T> T transaction(Work<T> work) throws SQLException {
        return borrow(true, work);
    }

    /** Every row of one statement, in auto-commit mode. */
    public <T> List<T> list(String sql, Binder binder, Row<T> row) throws SQLException {
        return autoCommit(c -> list(c, sql, binder, row));
    }

    /** The first row of one statement, in auto-commit mode. */
    public <T> Optional<T> first(String sql, Binder binder, Row<T> row) throws SQLException {
        return autoCommit(c -> first(c, sql, binder, row));
    }

    /** Runs one statement in auto-commit mode; returns the rows it changed. */
    public int update(String sql, Binder binder) throws SQLException {
        return autoCommit(c -> update(c, sql, binder));
    }

    /** Runs one statement on {@code c} and hands each row to {@code consumer}. */
    public static void each(Connection c, String sql, Binder binder, RowConsumer consumer) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(new Params(c, ps));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    consumer.accept(rs);
                }
            }
        }
    }

    /** Every row of one statement on {@code c}. */
    public static <T> List<T> list(Connection c, String sql, Binder binder, Row<T> row) throws SQLException {
        List<T> rows = new ArrayList<>();
        each(c, sql, binder, rs -> rows.add(row.read(rs)));
        return rows;
    }

    /** The first row of one statement on {@code c}. */
    public static <T> Optional<T> first(Connection c, String sql, Binder binder, Row<T> row) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(new Params(c, ps));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(row.read(rs)) : Optional.empty();
            }
        }
    }

    /** Runs one statement on {@code c}, ignoring any rows (e.g. a {@code SELECT pg_notify(...)}). */
    public static void execute(Connection c, String sql, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(new Params(c, ps));
            ps.execute();
        }
    }

    /** Runs one statement on {@code c}; returns the rows it changed. */
    public static int update(Connection c, String sql, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            binder.bind(new Params(c, ps));
            return ps.executeUpdate();
        }
    }

    /** A timestamptz column as an instant; null for SQL NULL. */
    public static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    private <T> T borrow(boolean transaction, Work<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            int previousTimeout = networkTimeout.apply(c);
            boolean previous = c.getAutoCommit();
            boolean wanted = !transaction;
            if (previous != wanted) {
                c.setAutoCommit(wanted);
            }
            T result;
            try {
                result = work.run(c);
                if (transaction) {
                    c.commit();
                }
            } catch (Throwable e) {
                if (transaction) {
                    undo(() -> c.rollback(), e);
                }
                if (previous != wanted) {
                    undo(() -> c.setAutoCommit(previous), e);
                }
                undo(() -> networkTimeout.restore(c, previousTimeout), e);
                throw e;
            }
            // After a commit there is no open transaction, so this sends nothing to the server.
            if (previous != wanted) {
                c.setAutoCommit(previous);
            }
            try {
                networkTimeout.restore(c, previousTimeout);
            } catch (SQLException e) {
                // The work is done (and committed): a connection that broke since is the pool's to discard.
            }
            return result;
        }
    }

    private interface Undo {
        void run() throws SQLException;
    }

    /** Cleans up after {@code failure}; a second failure (a dead connection) is kept with the first. */
    private static void undo(Undo undo, Throwable failure) {
        try {
            undo.run();
        } catch (SQLException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** A statement's parameters, bound in the order of its {@code ?}s, each with its SQL type. */
    public static final class Params {
        private final Connection connection;
        private final PreparedStatement statement;
        private int next = 1;

        Params(Connection connection, PreparedStatement statement) {
            this.connection = connection;
            this.statement = statement;
        }

        public Params text(String value) throws SQLException {
            statement.setString(next++, value);
            return this;
        }

        public Params bool(boolean value) throws SQLException {
            statement.setBoolean(next++, value);
            return this;
        }

        public Params int2(int value) throws SQLException {
            statement.setShort(next++, (short) value);
            return this;
        }

        public Params int4(int value) throws SQLException {
            statement.setInt(next++, value);
            return this;
        }

        /** An integer or SQL NULL. */
        public Params int4(Integer value) throws SQLException {
            statement.setObject(next++, value, Types.INTEGER);
            return this;
        }

        public Params float8(double value) throws SQLException {
            statement.setDouble(next++, value);
            return this;
        }

        public Params int8(long value) throws SQLException {
            statement.setLong(next++, value);
            return this;
        }

        /** A bigint or SQL NULL. */
        public Params int8(Long value) throws SQLException {
            statement.setObject(next++, value, Types.BIGINT);
            return this;
        }

        /** A timestamptz, or NULL of unspecified type (the statement casts it). */
        public Params timestamptz(Instant value) throws SQLException {
            statement.setObject(next++, value == null ? null : OffsetDateTime.ofInstant(value, ZoneOffset.UTC));
            return this;
        }

        /** An array of {@code elementType} ({@code text}, {@code int4}, {@code bigint}, ...). */
        public Params array(String elementType, Object[] values) throws SQLException {
            statement.setArray(next++, connection.createArrayOf(elementType, values));
            return this;
        }

        public Params array(String elementType, Collection<?> values) throws SQLException {
            return array(elementType, values.toArray());
        }

        /** Cancels the statement after {@code seconds} (not a parameter; may come anywhere). */
        public Params timeoutSeconds(int seconds) throws SQLException {
            statement.setQueryTimeout(seconds);
            return this;
        }
    }
}
