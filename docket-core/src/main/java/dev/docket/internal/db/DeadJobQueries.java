package dev.docket.internal.db;

import dev.docket.DeadJobGroup;
import dev.docket.JobSummary;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/** The dead-letter table, for operators: listing, grouping, replay and retention. */
public record DeadJobQueries(Jdbc jdbc, Statements sql) {

    /**
     * One keyset page of dead jobs, newest first, optionally of one kind and with {@code errorContains}
     * (ignoring case) in one of their error messages or their reason; null filters match all.
     */
    public List<JobSummary> list(String kind, String errorContains, Long before, int limit) throws SQLException {
        return jdbc.list(sql.get("deadJobList"), p -> p.text(kind).text(kind)
                .text(errorContains).text(errorContains).text(errorContains)
                .int8(before == null ? Long.MAX_VALUE : before).int4(limit), JobQueries::summary);
    }

    /** Dead jobs grouped by kind and error, largest groups first. */
    public List<DeadJobGroup> groups(String kind, int limit) throws SQLException {
        return jdbc.list(sql.get("deadJobGroups"), p -> p.text(kind).text(kind).int4(limit),
                rs -> new DeadJobGroup(rs.getString("kind"), rs.getString("error"), rs.getLong("jobs"),
                        Jdbc.instant(rs, "first_died_at"), Jdbc.instant(rs, "last_died_at")));
    }

    /** Puts dead jobs back to ready with a fresh attempt budget and wakes their queues; returns the ids replayed. */
    public List<Long> replay(List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        return jdbc.list(sql.get("deadJobReplay"), p -> p.array("bigint", ids), rs -> rs.getLong("id"));
    }

    /** Deletes up to {@code limit} dead jobs older than {@code retention}; returns how many. */
    public int deleteExpired(Duration retention, int limit) throws SQLException {
        return jdbc.update(sql.get("deadJobDeleteExpired"), p -> p.int8(retention.toMillis()).int4(limit));
    }
}
