package dev.docket.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * The partition of one worker host: host 1 is cut off from the database for longer than its lease
 * while its handlers keep running, then healed. Its leases count as lost at the cut (the check bounds
 * their re-claim elsewhere); after the heal its handlers of jobs it lost must be interrupted, its
 * writes about them fenced out (no job completes twice), and its workers must work again without a
 * restart.
 *
 * @param o       the run's options
 * @param network the hosts' network namespaces, where the cut is made
 * @param fleet   the worker JVMs
 * @param db      the harness's pool
 */
record HostCut(ChaosOptions o, HostNetwork network, WorkerFleet fleet, DataSource db) {

    static final int HOST = 1;

    /**
     * A cut that happened, for {@link #check}.
     *
     * @param cutWorkers the workers on the host when it was cut off
     * @param held       the attempts they held at the cut, by job id
     * @param healedAt   when the host was healed, by the database clock
     */
    record Healed(List<String> cutWorkers, Map<Long, Integer> held, Instant healedAt) {
    }

    /** Cuts the host off for the outage's length while the fleet goes on, heals it, and says what was cut. */
    Healed run() throws Exception {
        // A cut of a host whose workers are still starting (replacements of killed ones) proves nothing: wait,
        // up to a lease, until its workers hold jobs (the jobs slow on it went in two seconds ago).
        long busyBy = System.nanoTime() + o.lease().toNanos();
        while (Sql.retrying(() -> fleet.heldBy(fleet.onHost(HOST))).isEmpty() && System.nanoTime() < busyBy) {
            fleet.replaceCrashed();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        List<String> cutWorkers = fleet.onHost(HOST);
        Instant at = Sql.retrying(() -> Sql.now(db));
        network.cut(HOST);
        Map<Long, Integer> held = Sql.retrying(() -> fleet.heldBy(cutWorkers));
        fleet.lost("cut host " + HOST + " " + cutWorkers, at, held);
        cutWorkers.forEach(w -> fleet.explain(w, "partitioned"));
        System.out.printf(Locale.ROOT, "chaos: host %d %s cut off for %s holding %d jobs%n", HOST, cutWorkers,
                o.outage(), held.size());
        long until = System.nanoTime() + o.outage().toNanos();
        Set<String> seen = new HashSet<>();
        while (System.nanoTime() < until) {
            fleet.replaceCrashed();
            reportStuckSessions(seen);
            TimeUnit.MILLISECONDS.sleep(50);
        }
        network.heal(HOST);
        Instant healedAt = Sql.retrying(() -> Sql.now(db));
        System.out.printf(Locale.ROOT, "chaos: host %d healed%n", HOST);
        return new Healed(cutWorkers, held, healedAt);
    }

    /**
     * Prints, once each, the sessions that wait for a lock and the open transactions that sit idle while
     * the host is cut off: a transaction the cut host had begun keeps its row locks until the server
     * notices the client is gone, and what it blocks is what a late rescue would be waiting on.
     */
    private void reportStuckSessions(Set<String> seen) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT pid, client_addr, state, pg_blocking_pids(pid)::text AS blockers,
                       left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
                  FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid()
                   AND (state LIKE 'idle in transaction%' OR cardinality(pg_blocking_pids(pid)) > 0)
                """);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String line = String.format(Locale.ROOT, "pid %d from %s %s blocked by %s: %s", rs.getInt("pid"),
                        rs.getString("client_addr"), rs.getString("state"), rs.getString("blockers"), rs.getString("query"));
                if (seen.add(line)) {
                    System.out.println("chaos: during the cut, " + line);
                }
            }
        }
    }

    /**
     * How long after the heal a handler of a lost job may still run: the cut host's heartbeat, which
     * finds the job lost, runs every fifth of the lease, may first have to give up a half-open
     * connection (the network timeout) and wait for a new one (the pool's 3 s connection timeout).
     */
    Duration interruptBound() {
        return o.networkTimeout().plus(o.lease().dividedBy(5)).plusSeconds(3);
    }

    void check(Healed healed, ChaosReport r, ChaosCheck check, Collection<Long> longJobs, Path runDir)
            throws SQLException, IOException {
        List<String> cutWorkers = healed.cutWorkers();
        Instant healedAt = healed.healedAt();
        long lostHandlers = 0;
        long interrupted = 0;
        long lastMillis = 0;
        // The long jobs the cut host held at the cut and ran; a handler that began as the cut fell records
        // its start only after the heal, so the attempt held at the cut is what says the handler was cut off.
        List<Long> heldLong = healed.held().keySet().stream().filter(longJobs::contains).toList();
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT i.at FROM unnest(?::bigint[], ?::int[]) AS h(job_id, attempt)
                  JOIN %1$s.ledger l USING (job_id, attempt)
                  LEFT JOIN %1$s.interrupts i USING (job_id, attempt, worker)
                 WHERE l.worker = ANY (?)
                   AND EXISTS (SELECT 1 FROM %1$s.ledger n WHERE n.job_id = l.job_id AND n.attempt > l.attempt)
                """.formatted(ChaosHarness.SCHEMA))) {
            ps.setArray(1, c.createArrayOf("bigint", heldLong.toArray()));
            ps.setArray(2, c.createArrayOf("int4", heldLong.stream().map(healed.held()::get).toArray()));
            ps.setArray(3, c.createArrayOf("text", cutWorkers.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    lostHandlers++;
                    OffsetDateTime at = rs.getObject(1, OffsetDateTime.class);
                    if (at != null) {
                        interrupted++;
                        lastMillis = Math.max(lastMillis, Duration.between(healedAt, at.toInstant()).toMillis());
                    }
                }
            }
        }
        long bound = interruptBound().toMillis();
        r.figure("cut host's handlers of lost jobs interrupted", interrupted + " of " + lostHandlers,
                lostHandlers > 0 && interrupted == lostHandlers);
        r.figure("  heal -> last interrupt", lastMillis + " ms (bound " + bound + " ms)", lastMillis <= bound);
        check.resumed(r, "cut host's workers", cutWorkers, healedAt, healedAt, interruptBound());
        long discarded = 0;
        for (String w : cutWorkers) {
            // The worker logs each write that its fence refused: an outcome of a job it no longer held.
            try (Stream<String> lines = Files.lines(runDir.resolve(w + ".log"))) {
                discarded += lines.filter(l -> l.contains("outcome discarded")).count();
            }
        }
        r.figure("cut host's outcomes fenced out (discarded)", Long.toString(discarded), true);
    }
}
