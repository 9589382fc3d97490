package dev.docket.internal.db;

import dev.docket.DeadJobReplay;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Dead-letter replays at a rate: their start, their turns with the maintenance leader, and their progress. */
public record DeadJobReplayQueries(Jdbc jdbc, Statements sql) {

    /** A running replay's turn: its filter, cursor, how many it may still look at, and the jobs it has earned. */
    public record Turn(long id, String kind, String errorContains, String signature, Long nextBefore, int remaining,
                       double credit) {

        /** The dead jobs this turn may take: the replay's filter below its cursor. */
        public DeadJobQueries.Filter filter() {
            return new DeadJobQueries.Filter(kind, errorContains, signature, nextBefore);
        }
    }

    /** Records a new replay of the dead jobs matching the filter (see {@link dev.docket.DocketAdmin#startDeadJobReplay}). */
    public DeadJobReplay start(DeadJobQueries.Filter filter, double ratePerSecond, int max) throws SQLException {
        return jdbc.first(sql.get("deadJobReplayStart"), p -> filter.bind(p).int4(max)
                        .text(filter.kind()).text(filter.errorContains()).text(filter.signature()).int8(filter.before())
                        .float8(ratePerSecond).int4(max),
                DeadJobReplayQueries::replay).orElseThrow();
    }

    /** Gives every running replay its turn: the jobs it earned since its last (see the statement). */
    public List<Turn> turn() throws SQLException {
        return jdbc.list(sql.get("deadJobReplayTurn"), Jdbc.NO_PARAMETERS, rs -> new Turn(rs.getLong("id"), rs.getString("kind"),
                rs.getString("error_contains"), rs.getString("signature"), nullableLong(rs, "next_before"), rs.getInt("remaining"),
                rs.getDouble("credit")));
    }

    /** Records a replay's progress after a turn; {@code finished} ends it. */
    public void advance(long id, int scanned, int replayed, Long nextBefore, boolean finished) throws SQLException {
        jdbc.update(sql.get("deadJobReplayAdvance"), p -> p.int4(scanned).int4(replayed).int8(nextBefore).int4(scanned)
                .bool(finished).bool(finished).int8(id));
    }

    public Optional<DeadJobReplay> find(long id) throws SQLException {
        return jdbc.first(sql.get("deadJobReplayFind"), p -> p.int8(id), DeadJobReplayQueries::replay);
    }

    /** The newest replays first, at most {@code limit}. */
    public List<DeadJobReplay> list(int limit) throws SQLException {
        return jdbc.list(sql.get("deadJobReplayList"), p -> p.int4(limit), DeadJobReplayQueries::replay);
    }

    /** Deletes the replays that finished more than {@code retention} ago; returns how many. */
    public int deleteFinished(Duration retention) throws SQLException {
        return jdbc.update(sql.get("deadJobReplayDeleteFinished"), p -> p.int8(retention.toMillis()));
    }

    private static DeadJobReplay replay(ResultSet rs) throws SQLException {
        return new DeadJobReplay(rs.getLong("id"), rs.getString("kind"), rs.getString("error_contains"), rs.getString("signature"),
                nullableLong(rs, "before_id"), rs.getDouble("rate_per_second"), rs.getInt("max_jobs"),
                rs.getInt("matched"), rs.getInt("scanned"), rs.getInt("replayed"),
                DeadJobReplay.State.valueOf(rs.getString("state").toUpperCase(Locale.ROOT)),
                Jdbc.instant(rs, "created_at"), Jdbc.instant(rs, "finished_at"));
    }

    private static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }
}
