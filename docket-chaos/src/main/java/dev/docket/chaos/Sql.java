package dev.docket.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/** The harness's own small queries, each ridden through database outages by {@link #retrying}. */
final class Sql {

    interface Call<T> {
        T call() throws SQLException;
    }

    private Sql() {
    }

    /**
     * Runs a harness query, retrying for up to 30 s: right after a PostgreSQL restart or failover the
     * pool still hands out connections the outage broke, and the harness must ride that out like the
     * workers do.
     */
    static <T> T retrying(Call<T> call) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return call.call();
            } catch (SQLException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    static Instant now(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    static long count(DataSource dataSource, String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The first column of every row. */
    static java.util.List<String> strings(DataSource dataSource, String sql) throws SQLException {
        java.util.List<String> values = new java.util.ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    static void execute(DataSource dataSource, String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
