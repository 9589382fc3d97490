package dev.docket.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Reads rows from a test's schema for assertions: {@code {s}} in the SQL stands for the schema.
 * A small complement to {@link DocketTest#queryLong}, for queries that return several rows or columns.
 */
public final class Queries {

    private Queries() {
    }

    /** Every row of the query, each as column label to value, in result order. */
    public static List<Map<String, Object>> rows(DataSource dataSource, String schema, String sql, Object... params) {
        try (Connection c = dataSource.getConnection()) {
            return rows(c, schema, sql, params);
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /**
     * The same on a connection the test holds: for a look that must not wait for the pool, or that
     * runs while the test's own transactions hold every other connection.
     */
    public static List<Map<String, Object>> rows(Connection c, String schema, String sql, Object... params) {
        try (PreparedStatement ps = c.prepareStatement(sql.replace("{s}", schema))) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            List<Map<String, Object>> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 1; i <= columns; i++) {
                        row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
                    }
                    rows.add(row);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The first column of every row, as longs (SQL NULL becomes {@code null}). */
    public static List<Long> longs(DataSource dataSource, String schema, String sql, Object... params) {
        return firstColumn(rows(dataSource, schema, sql, params));
    }

    /** The same on a connection the test holds. */
    public static List<Long> longs(Connection c, String schema, String sql, Object... params) {
        return firstColumn(rows(c, schema, sql, params));
    }

    private static List<Long> firstColumn(List<Map<String, Object>> rows) {
        List<Long> values = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            Object v = row.values().iterator().next();
            values.add(v == null ? null : ((Number) v).longValue());
        }
        return values;
    }
}
