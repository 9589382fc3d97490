package dev.docket.internal.db;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/** What "why is this job not running?" reads: the live job, its queue's settings and load, and the backlog ahead. */
public record ExplainQueries(Jdbc jdbc, Statements sql) {

    /** The most ready jobs ahead that are counted; a larger backlog is reported as at least this. */
    public static final long AHEAD_BOUND = 100_000;

    /**
     * A live job as the explanation needs it; {@code awaitSignal} (with {@code awaitSince}, {@code awaitDeadline},
     * {@code awaitOnTimeout}) is the signal a waiting job waits for, else null.
     */
    public record LiveJob(long id, String queue, String kind, String state, int priority, Instant runAt, int attempt,
                          int maxAttempts, String tenant, String lockedBy, Instant leaseUntil, Instant attemptedAt,
                          int payloadVersion, String metadata, Instant lastErrorAt, Instant now,
                          String sequenceKey, int waitingFor, Long dependencyDelayMillis, String awaitSignal,
                          Instant awaitSince, Instant awaitDeadline, String awaitOnTimeout, String debounceKey,
                          Instant debounceDeadline) {
    }

    /** A queue's settings (null when it has none) and its running jobs, in all and of one tenant. */
    public record QueueLoad(boolean paused, Integer maxRunning, Integer tenantMaxRunning, long running,
                            long tenantRunning) {
    }

    public Optional<LiveJob> job(long id) throws SQLException {
        return jdbc.first(sql.get("explainJob"), p -> p.int8(id), rs -> new LiveJob(rs.getLong("id"),
                rs.getString("queue"), rs.getString("kind"), rs.getString("state"), rs.getInt("priority"),
                Jdbc.instant(rs, "run_at"), rs.getInt("attempt"), rs.getInt("max_attempts"), rs.getString("tenant"),
                rs.getString("locked_by"), Jdbc.instant(rs, "lease_until"), Jdbc.instant(rs, "attempted_at"),
                rs.getInt("payload_version"), rs.getString("metadata"), Jdbc.instant(rs, "last_error_at"),
                Jdbc.instant(rs, "now"), rs.getString("sequence_key"), rs.getInt("waiting_for"),
                rs.getObject("dependency_delay_ms", Long.class), rs.getString("await_signal"),
                Jdbc.instant(rs, "await_since"), Jdbc.instant(rs, "await_deadline"), rs.getString("await_on_timeout"),
                rs.getString("debounce_key"), Jdbc.instant(rs, "debounce_deadline")));
    }

    public QueueLoad queue(String queue, String tenant) throws SQLException {
        return jdbc.first(sql.get("explainQueue"), p -> p.text(queue).text(queue).text(queue).text(tenant).text(queue),
                rs -> new QueueLoad(rs.getBoolean("paused"), rs.getObject("max_running", Integer.class),
                        rs.getObject("tenant_max_running", Integer.class), rs.getLong("running"),
                        rs.getLong("tenant_running"))).orElseThrow();
    }

    /** Ready jobs of the job's queue that the claim takes before it, at most {@link #AHEAD_BOUND}. */
    public long ahead(LiveJob job) throws SQLException {
        return jdbc.first(sql.get("explainAhead"), p -> p.text(job.queue()).int4(job.priority())
                .timestamptz(job.runAt()).int8(job.id()), rs -> rs.getLong("ahead")).orElseThrow();
    }
}
