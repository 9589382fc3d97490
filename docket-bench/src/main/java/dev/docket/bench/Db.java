package dev.docket.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;

final class Db {
    private Db() {
    }

    static long count(DataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The server's current WAL position in bytes: the difference of two is the WAL written between them. */
    static long walPosition(DataSource ds) throws Exception {
        return count(ds, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
    }

    static String string(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    static void execute(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** {@code url} with its database name replaced. */
    static String withDatabase(String url, String database) {
        int q = url.indexOf('?');
        String base = q < 0 ? url : url.substring(0, q);
        String query = q < 0 ? "" : url.substring(q);
        int slash = base.lastIndexOf('/');
        return base.substring(0, slash + 1) + database + query;
    }
}
