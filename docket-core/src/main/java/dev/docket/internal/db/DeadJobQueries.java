package dev.docket.internal.db;

import dev.docket.DeadJobGroup;
import dev.docket.DeadJobQuery;
import dev.docket.JobSummary;
import dev.docket.internal.text.ErrorSignature;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The dead-letter table, for operators: listing, grouping, replay and retention. */
public record DeadJobQueries(Jdbc jdbc, Statements sql) {

    private static final int SIGN_PAGE = 1000;

    /**
     * Which dead jobs: of one kind, with {@code errorContains} (ignoring case) in one of their error
     * messages or their reason, of one error signature, with ids below {@code before}; null matches all.
     */
    public record Filter(String kind, String errorContains, String signature, Long before) {

        /** The filter of a public query (its page size is the caller's business). */
        public static Filter of(DeadJobQuery query) {
            return new Filter(query.kind(), query.errorContains(), query.signature(), query.before());
        }

        /** Binds the fragment {@code deadJobMatches}. */
        Jdbc.Params bind(Jdbc.Params p) throws SQLException {
            return p.text(kind).text(kind).text(errorContains).text(errorContains).text(errorContains)
                    .text(signature).text(signature).int8(before == null ? Long.MAX_VALUE : before);
        }
    }

    /** One keyset page of the dead jobs that match {@code filter}, newest first. */
    public List<JobSummary> list(Filter filter, int limit) throws SQLException {
        return jdbc.list(sql.get("deadJobList"), p -> filter.bind(p).int4(limit), JobQueries::summary);
    }

    /** Dead jobs grouped by kind and error signature, largest groups first (fill signatures in first: {@link #sign}). */
    public List<DeadJobGroup> groups(String kind, int limit) throws SQLException {
        return jdbc.list(sql.get("deadJobGroups"), p -> p.text(kind).text(kind).int4(limit),
                rs -> new DeadJobGroup(rs.getString("kind"), rs.getString("error_signature"), rs.getString("example"),
                        rs.getLong("jobs"), Jdbc.instant(rs, "first_died_at"), Jdbc.instant(rs, "last_died_at")));
    }

    /**
     * Computes the error signature ({@link ErrorSignature}) of every dead job that has none yet, a
     * page at a time; returns how many it signed. Jobs reach the dead-letter table without one (the
     * statements that move them there stay as they are); this runs before every read that groups or
     * filters by signature, so those reads see every job that died before them.
     */
    public int sign() throws SQLException {
        int signed = 0;
        while (true) {
            List<Map.Entry<Long, String>> page = jdbc.list(sql.get("deadJobUnsigned"), p -> p.int4(SIGN_PAGE),
                    rs -> Map.entry(rs.getLong("id"), ErrorSignature.of(rs.getString("error"))));
            if (page.isEmpty()) {
                return signed;
            }
            jdbc.update(sql.get("deadJobSignMany"), p -> p.array("bigint", page.stream().map(Map.Entry::getKey).toList())
                    .array("text", page.stream().map(Map.Entry::getValue).toList()));
            signed += page.size();
            if (page.size() < SIGN_PAGE) {
                return signed;
            }
        }
    }

    /** Puts dead jobs back to ready with a fresh attempt budget and wakes their queues; returns the ids replayed. */
    public List<Long> replay(List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return List.of();
        }
        return jdbc.list(sql.get("deadJobReplay"), p -> p.array("bigint", ids), rs -> rs.getLong("id"));
    }

    /** Deletes up to {@code limit} dead jobs older than {@code retention}; returns how many. */
    /** Deletes dead job {@code id} for good; false if there is none. */
    public boolean discard(long id) throws SQLException {
        return jdbc.update(sql.get("deadJobDiscard"), p -> p.int8(id)) == 1;
    }

    public int deleteExpired(Duration retention, int limit) throws SQLException {
        return jdbc.update(sql.get("deadJobDeleteExpired"), p -> p.int8(retention.toMillis()).int4(limit));
    }
}
