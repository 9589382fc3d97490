package dev.docket.internal.db;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/** The leaders table: one row per role, held by a lease with a term. */
public record LeaderQueries(Jdbc jdbc, Statements sql) {

    /**
     * Tries to take or renew {@code role} for {@code leaderId} for {@code ttl}; returns the term when
     * this node holds the role afterwards. {@code now} replaces the database clock (tests only), or null.
     */
    public Optional<Long> attemptElect(String role, String leaderId, Duration ttl, Instant now) throws SQLException {
        // A renewal slower than a third of the lease is worth less than a retry.
        int timeout = (int) Math.max(1, ttl.toSeconds() / 3);
        return jdbc.first(sql.get("leaderAttemptElect"), p -> p.timeoutSeconds(timeout)
                .text(role).text(leaderId).int8(ttl.toMillis()).timestamptz(now), rs -> rs.getLong("term"));
    }

    /** Gives up {@code role} if {@code leaderId} holds it, so another node takes over without waiting. */
    public void resign(String role, String leaderId) throws SQLException {
        jdbc.update(sql.get("leaderResign"), p -> p.text(role).text(leaderId));
    }
}
