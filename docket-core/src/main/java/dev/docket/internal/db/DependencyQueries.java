package dev.docket.internal.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Dependencies: at enqueue on the caller's connection, in its transaction (never commits, rolls back or
 * closes it); and what a waiting job waits for.
 */
public record DependencyQueries(Jdbc jdbc, Statements sql) {

    /** One unsettled edge: {@code jobId} waits for {@code dependsOn}, as {@code mode} (job_dependencies.mode) says. */
    public record Edge(long dependsOn, long jobId, String mode) {
    }

    /** An unsettled dependency of a waiting job: its id, the dependent's mode, and its state ('dead' when not live). */
    public record Pending(long dependsOn, String mode, String state) {
    }

    /** The first {@code limit} dependencies {@code jobId} still waits for, by id. */
    public List<Pending> waitingFor(long jobId, int limit) throws SQLException {
        return jdbc.list(sql.get("dependencyWaitingFor"), p -> p.int8(jobId).int4(limit),
                rs -> new Pending(rs.getLong("depends_on"), rs.getString("mode"), rs.getString("state")));
    }

    /** How many dependencies a waiting job still waits for (0 for any other job). */
    public int waitingCount(long jobId) throws SQLException {
        return jdbc.first(sql.get("dependencyWaitingCount"), p -> p.int8(jobId), rs -> rs.getInt("n")).orElse(0);
    }

    /** Marks and locks the live jobs among {@code ids} until the transaction ends; returns them. */
    public Set<Long> lockLive(Connection c, Long[] ids) throws SQLException {
        Set<Long> live = new HashSet<>();
        Jdbc.each(c, sql.get("dependencyLockLive"), p -> p.array("bigint", ids), rs -> live.add(rs.getLong("id")));
        return live;
    }

    /** How the finished jobs among {@code ids} ended: completed, cancelled or dead; an id absent is unknown. */
    public Map<Long, String> finished(Connection c, Long[] ids) throws SQLException {
        Map<Long, String> outcomes = new HashMap<>();
        Jdbc.each(c, sql.get("dependencyFinished"), p -> p.array("bigint", ids).array("bigint", ids),
                rs -> outcomes.put(rs.getLong("id"), rs.getString("outcome")));
        return outcomes;
    }

    /**
     * Makes the jobs wait (each for {@code counts[i]} dependencies, then {@code delaysMillis[i]} more, null for
     * none) and records their edges.
     */
    public void wait(Connection c, Long[] jobIds, Integer[] counts, Long[] delaysMillis, List<Edge> edges)
            throws SQLException {
        Jdbc.update(c, sql.get("dependencyWait"), p -> p.array("bigint", jobIds).array("int4", counts)
                .array("bigint", delaysMillis));
        if (!edges.isEmpty()) {
            Jdbc.update(c, sql.get("dependencyInsertEdges"), p -> p
                    .array("bigint", edges.stream().map(Edge::dependsOn).toList())
                    .array("bigint", edges.stream().map(Edge::jobId).toList())
                    .array("text", edges.stream().map(Edge::mode).toList()));
        }
    }

    /** Schedules jobs whose dependencies had all completed at enqueue {@code delaysMillis[i]} from now (their timer). */
    public void delayNow(Connection c, List<Long> jobIds, List<Long> delaysMillis) throws SQLException {
        Jdbc.update(c, sql.get("dependencyDelayNow"), p -> p.array("bigint", jobIds).array("bigint", delaysMillis));
    }

    /** Cancels waiting jobs with {@code reason}, settling their own dependents in turn. */
    public void cancelWaiting(Connection c, List<Long> jobIds, String reason) throws SQLException {
        Jdbc.execute(c, sql.get("dependencyCancelWaiting"), p -> p.array("bigint", jobIds).text(reason));
    }
}
