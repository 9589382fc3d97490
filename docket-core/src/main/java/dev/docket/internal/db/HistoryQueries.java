package dev.docket.internal.db;

import java.sql.SQLException;
import java.time.Duration;

/** The job history's day partitions: created ahead of time, dropped when their retention is over. */
public record HistoryQueries(Jdbc jdbc, Statements sql) {

    /** Creates the partitions of today and the next {@code daysAhead} days that are missing; returns how many. */
    public int createPartitions(int daysAhead) throws SQLException {
        return jdbc.first(sql.get("historyCreatePartitions"), p -> p.int4(daysAhead), rs -> rs.getInt("created")).orElseThrow();
    }

    /** Drops the partitions whose every job finished more than {@code retention} ago; returns how many. */
    public int dropPartitions(Duration retention) throws SQLException {
        return jdbc.first(sql.get("historyDropPartitions"), p -> p.int8(retention.toMillis()), rs -> rs.getInt("dropped")).orElseThrow();
    }
}
