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
 * came back: promotion, the first job started on the new primary, and every worker resuming.
 */
final class FailoverAudit {

    private static final String S = ChaosHarness.SCHEMA;
    /** The stated bound on the first job started after the primary died: promotion, then a producer's reconnect. */
    static final Duration RESUME_BOUND = Duration.ofSeconds(10);

    private final ReplicatedServers servers;
    private final DataSource newPrimary;
    private final Outage failover;
    private Set<Long> lostEnqueues = Set.of();

    FailoverAudit(ReplicatedServers servers, DataSource newPrimary, Outage failover) {
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
        try (ReplicatedServers.OldPrimary old = servers.openOldPrimary(log)) {
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

    /** Promotion time, and every worker alive at the failover resuming on the new primary without a restart. */
    void resumption(ChaosReport r, ChaosCheck check, Collection<String> aliveAtFailover) throws SQLException {
        r.figure("primary killed -> standby promoted", failover.length().toMillis() + " ms", true);
        check.resumed(r, "workers of the old primary", aliveAtFailover, failover.end(), failover.start(), RESUME_BOUND);
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
