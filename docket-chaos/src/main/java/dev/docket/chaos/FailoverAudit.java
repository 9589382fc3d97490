package dev.docket.chaos;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * What a failover cost, found by comparing the killed primary (opened again alone after the run)
 * with the promoted standby: acknowledged enqueues that only the old primary had, and completions
 * that only the old primary had (those jobs ran again on the new one). Also how fast the cluster
 * came back: promotion, the first claim on the new primary, and every worker resuming, each within
 * the bounds the servers state; and the same for a planned switchover before it, where there was one.
 */
final class FailoverAudit {

    private static final String S = ChaosHarness.SCHEMA;

    private final FailoverDatabase servers;
    private final DataSource newPrimary;
    private final Outage failover;
    private Set<Long> lostEnqueues = Set.of();

    FailoverAudit(FailoverDatabase servers, DataSource newPrimary, Outage failover) {
        this.servers = servers;
        this.newPrimary = newPrimary;
        this.failover = failover;
    }

    /** Acknowledged enqueues the failover lost: on the old primary, not on the new one. Call after the run. */
    Set<Long> lostEnqueues() {
        return lostEnqueues;
    }

    void audit(List<Long> acknowledged, ChaosReport r, Path log) throws Exception {
        Set<Long> onNew = ids(newPrimary, "SELECT id FROM %1$s.jobs UNION SELECT id FROM %1$s.job_history "
                + "UNION SELECT id FROM %1$s.dead_jobs");
        Set<Long> finishedOnOld;
        Set<Long> onOld;
        try (FailoverDatabase.OldPrimary old = servers.openOldPrimary(log)) {
            onOld = ids(old.dataSource(), "SELECT id FROM %1$s.jobs UNION SELECT id FROM %1$s.job_history "
                    + "UNION SELECT id FROM %1$s.dead_jobs");
            finishedOnOld = ids(old.dataSource(), "SELECT id FROM %1$s.job_history UNION SELECT id FROM %1$s.dead_jobs");
        }
        Set<Long> lost = new HashSet<>();
        for (long id : acknowledged) {
            if (!onNew.contains(id) && onOld.contains(id)) {
                lost.add(id);
            }
        }
        lostEnqueues = lost;
        r.lossAllowed = !servers.synchronous();
        r.failoverAudited = true;
        long rerun = rerunAfter(finishedOnOld, failover.start());
        r.figure("completions only the old primary had (ran again)", Long.toString(rerun), true);
    }

    /** Jobs among {@code ids} that the new primary's ledger shows started again after {@code since}. */
    private long rerunAfter(Collection<Long> ids, Instant since) throws SQLException {
        try (Connection c = newPrimary.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(DISTINCT job_id) FROM " + S + ".ledger WHERE job_id = ANY (?) AND at > ?")) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
            ps.setObject(2, OffsetDateTime.ofInstant(since, ZoneOffset.UTC));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * Promotion time, the first claim on the new primary, and every worker alive at the failover resuming on
     * the new primary without a restart.
     */
    void resumption(ChaosReport r, ChaosCheck check, Collection<String> aliveAtFailover) throws SQLException {
        Duration promoteBound = servers.promoteBound();
        long promoted = failover.length().toMillis();
        r.figure("primary killed -> standby promoted", promoted + " ms"
                + (promoteBound == null ? "" : " (bound " + promoteBound.toMillis() + " ms)"),
                promoteBound == null || promoted <= promoteBound.toMillis());
        firstClaim(r, "primary killed -> first claim on the new primary", failover, servers.resumeBound());
        check.resumed(r, "workers of the old primary", aliveAtFailover, failover.end(), failover.start(),
                servers.resumeBound());
    }

    /**
     * The planned disruption (a switchover): how long until the new primary took writes and until its first
     * claim, and every worker alive at its start resuming without a restart, within the servers' bounds.
     */
    void plannedResumption(ChaosReport r, ChaosCheck check, Outage planned, Collection<String> alive) throws SQLException {
        Duration bound = servers.plannedBound();
        r.figure(planned.what() + " -> new primary takes writes", planned.length().toMillis() + " ms (bound "
                + bound.toMillis() + " ms)", planned.length().compareTo(bound) <= 0);
        firstClaim(r, planned.what() + " -> first claim on the new primary", planned, servers.plannedResumeBound());
        check.resumed(r, "workers at the " + planned.what(), alive, planned.end(), planned.start(),
                servers.plannedResumeBound());
    }

    /** The servers' own checks at the end of the run (one leader, ...). */
    void atEnd(ChaosReport r) throws Exception {
        servers.checkAtEnd(r);
    }

    /**
     * The first claim once {@code outage} was over (the new primary took writes; before that no claim can
     * commit there), from the outage's start: a claim's start, or a handler's first ledger row, whichever
     * the database recorded earlier (a later attempt overwrites a claim's start, never a ledger row).
     */
    private void firstClaim(ChaosReport r, String what, Outage outage, Duration bound) throws SQLException {
        try (Connection c = newPrimary.getConnection(); PreparedStatement ps = c.prepareStatement("""
                SELECT least((SELECT min(attempted_at) FROM %1$s.jobs WHERE attempted_at > ?),
                             (SELECT min(attempted_at) FROM %1$s.job_history WHERE attempted_at > ?),
                             (SELECT min(at) FROM %1$s.ledger WHERE at > ?))""".formatted(S))) {
            OffsetDateTime since = OffsetDateTime.ofInstant(outage.end(), ZoneOffset.UTC);
            for (int i = 1; i <= 3; i++) {
                ps.setObject(i, since);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                OffsetDateTime first = rs.getObject(1, OffsetDateTime.class);
                long ms = first == null ? -1 : Duration.between(outage.start(), first.toInstant()).toMillis();
                r.figure(what, (first == null ? "none" : ms + " ms") + " (bound " + bound.toMillis() + " ms)",
                        first != null && ms <= bound.toMillis());
            }
        }
    }

    private static Set<Long> ids(DataSource ds, String sql) throws SQLException {
        Set<Long> ids = new HashSet<>();
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql.formatted(S));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }
}
