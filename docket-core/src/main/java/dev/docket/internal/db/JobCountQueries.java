package dev.docket.internal.db;

import dev.docket.OutcomeTotals;
import java.sql.SQLException;
import java.util.List;

/**
 * The cluster's outcome counters (migration V014). The outcome statements append their counts
 * themselves (in job.sql and dead_job.sql); this class folds them and reads the totals.
 */
public record JobCountQueries(Jdbc jdbc, Statements sql) {

    /** Folds up to {@code page} appended deltas into the totals; returns how many it folded. */
    public int fold(int page) throws SQLException {
        return jdbc.first(sql.get("jobCountFold"), p -> p.int4(page), rs -> rs.getInt("moved")).orElseThrow();
    }

    /** The totals per queue and kind, folded and not yet folded added up, by queue then kind. */
    public List<OutcomeTotals> totals() throws SQLException {
        return jdbc.list(sql.get("jobCountTotals"), Jdbc.NO_PARAMETERS, rs -> new OutcomeTotals(rs.getString("queue"),
                rs.getString("kind"), rs.getLong("completed"), rs.getLong("failed"), rs.getLong("dead")));
    }
}
