package dev.docket.internal.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Sequences ({@code JobOptions.sequenceKey}): the locks of a bulk enqueue, and what "why is this
 * job not running?" reads. Heads move in the jobs table's triggers (migration V010), not here.
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

    /**
     * Before a bulk insert of jobs with two or more sequence keys, takes their locks in sorted order
     * on the caller's transaction (the insert's trigger would take them in row order, and two bulk
     * enqueues could deadlock). Does nothing for fewer keys: no statement for jobs without one.
     */
    public static void lockKeys(Connection c, Statements sql, String[] sequenceKeys) throws SQLException {
        if (severalKeys(Arrays.stream(sequenceKeys))) {
            Jdbc.first(c, sql.get("sequenceLockMany"), p -> p.array("text", sequenceKeys), rs -> rs.getLong("locked"));
        }
    }

    /**
     * Before a statement that removes several jobs, locks those jobs and then their sequence keys in
     * {@link #lockKeys}'s order, on the caller's transaction (the removal's trigger would take the keys
     * in row order, and could deadlock with a bulk enqueue of the same keys).
     */
    public static void lockKeysOfJobs(Connection c, Statements sql, Object[] jobIds) throws SQLException {
        Jdbc.first(c, sql.get("sequenceLockJobs"), p -> p.array("bigint", jobIds), rs -> rs.getLong("locked"));
    }

    /** Whether {@code keys} hold two or more distinct sequence keys: only then does lock order matter. */
    public static boolean severalKeys(Stream<String> keys) {
        return keys.filter(Objects::nonNull).distinct().limit(2).count() == 2;
    }
}
