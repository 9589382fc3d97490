package dev.docket.internal.db;

import java.sql.SQLException;

/**
 * Sequences ({@code JobOptions.sequenceKey}) as "why is this job not running?" reads them. Heads
 * move in the jobs table's triggers (migration V010), not here.
 */
public record SequenceQueries(Jdbc jdbc, Statements sql) {

    /**
     * What holds a waiting job of sequence {@code key} back.
     *
     * @param head         the job that holds the key now, or null
     * @param haltedBy     the dead job that halts the key, or null
     * @param waitingAhead waiting jobs of the key ahead of the job
     */
    public record Blocker(Long head, Long haltedBy, long waitingAhead) {
    }

    public Blocker blocker(String key, long jobId) throws SQLException {
        return jdbc.first(sql.get("sequenceBlocker"), p -> p.text(key).text(key).text(key).int8(jobId),
                rs -> new Blocker(rs.getObject("head", Long.class), rs.getObject("halted_by", Long.class),
                        rs.getLong("waiting_ahead"))).orElseThrow();
    }
}
