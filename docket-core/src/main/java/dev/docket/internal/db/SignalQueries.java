package dev.docket.internal.db;

import dev.docket.JobSignal;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The signals table: sending a signal (in the caller's transaction, or one of its own), what a handler
 * reads, a job's signals for views, and their pruning. The waits themselves are columns of the jobs table.
 */
public record SignalQueries(Jdbc jdbc, Statements sql) {

    /** The most signals a job view shows (the latest). */
    public static final int SHOWN = 50;

    /**
     * What sending did: {@code result} is 'resumed', 'kept' or 'not_live'; {@code readyQueue} the job's queue
     * when it became ready (its workers are to be woken), else null.
     */
    public record Sent(String result, String readyQueue) {
    }

    /** Sends a signal on {@code c}, in its transaction (never committed, rolled back or closed here). */
    public Sent send(Connection c, long jobId, String name, String payloadJson, String sentBy) throws SQLException {
        return Jdbc.first(c, sql.get("signalSend"), p -> p.int8(jobId).text(name).text(payloadJson).text(sentBy),
                rs -> new Sent(rs.getString("result"), rs.getString("queue"))).orElseThrow();
    }

    /**
     * Sends a signal whose payload is in clear on {@code c}, unless the job's payload is stored encrypted at rest
     * (then its signals must be encrypted too): empty then, and nothing was sent.
     */
    public Optional<Sent> sendInClear(Connection c, long jobId, String name, String payloadJson, String sentBy)
            throws SQLException {
        Sent sent = Jdbc.first(c, sql.get("signalSendInClear"), p -> p.int8(jobId).int8(jobId).text(name)
                .text(payloadJson).text(sentBy), rs -> new Sent(rs.getString("result"), rs.getString("queue")))
                .orElseThrow();
        return sent.result() == null ? Optional.empty() : Optional.of(sent);
    }

    /** The payload of the newest signal {@code name} sent to the job, as JSON text. */
    public Optional<String> latest(long jobId, String name) throws SQLException {
        return jdbc.first(sql.get("signalLatest"), p -> p.int8(jobId).text(name), rs -> rs.getString("payload"));
    }

    /** The job's latest {@link #SHOWN} signals, oldest first. */
    public List<JobSignal> forJob(long jobId) throws SQLException {
        List<JobSignal> newestFirst = jdbc.list(sql.get("signalListForJob"), p -> p.int8(jobId).int4(SHOWN),
                rs -> new JobSignal(rs.getLong("id"), rs.getString("name"), Jdbc.instant(rs, "sent_at"),
                        rs.getString("sent_by"), Jdbc.instant(rs, "resumed_at"), rs.getString("payload")));
        return new ArrayList<>(newestFirst).reversed();
    }

    /** Deletes up to {@code limit} signals of jobs that are no longer live, sent over {@code retentionMillis} ago. */
    public int deleteFinished(long retentionMillis, int limit) throws SQLException {
        return jdbc.update(sql.get("signalDeleteFinished"), p -> p.int8(retentionMillis).int4(limit));
    }
}
