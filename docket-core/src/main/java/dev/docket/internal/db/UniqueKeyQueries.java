package dev.docket.internal.db;

import java.sql.Connection;
import java.sql.SQLException;

/** The unique_keys table: unique keys held for a period ({@code uniqueFor}), beyond their job's life. */
public record UniqueKeyQueries(Jdbc jdbc, Statements sql) {

    /** Takes {@code key} for {@code jobId} for a period; returns null if taken, else the current holder's id. */
    Long acquire(Connection c, String key, long jobId, long periodMillis) throws SQLException {
        if (Jdbc.first(c, sql.get("uniqueKeyAcquire"), p -> p.text(key).int8(jobId).int8(periodMillis), rs -> true).isPresent()) {
            return null;
        }
        return Jdbc.first(c, sql.get("uniqueKeyHolder"), p -> p.text(key), rs -> rs.getLong("job_id"))
                .orElseThrow(() -> new SQLException("a unique key held for a period vanished while it was read"));
    }

    /** Makes {@code key} name {@code jobId}, the live job that holds it. */
    void point(Connection c, String key, long jobId) throws SQLException {
        Jdbc.update(c, sql.get("uniqueKeyPoint"), p -> p.int8(jobId).text(key));
    }

    /** Deletes up to {@code limit} unique keys whose period is over; returns how many. */
    public int deleteExpired(int limit) throws SQLException {
        return jdbc.update(sql.get("uniqueKeyDeleteExpired"), p -> p.int4(limit));
    }
}
