package dev.docket.internal.db;

import dev.docket.QueueSettings;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The claim: takes ready jobs of a queue for a worker, counting their attempt and setting their lease. */
public record JobClaimQueries(Jdbc jdbc, Statements sql) {

    /**
     * Claims up to {@code limit} ready jobs of a queue for {@code workerId}, in claim order; jobs of a
     * kind in {@code kindLeases} take that lease, the others {@code lease}. One statement in
     * auto-commit mode (it turns off synchronous commit for itself).
     */
    public List<ClaimedJob> claim(String queue, int limit, Duration lease, Map<String, Duration> kindLeases,
                                  String workerId) throws SQLException {
        List<String> kinds = new ArrayList<>(kindLeases.keySet());
        return jdbc.autoCommit(c -> {
            List<ClaimedJob> jobs = new ArrayList<>(limit);
            Jdbc.each(c, sql.get("jobClaim"), p -> p
                            .array("text", kinds).array("bigint", leaseMillis(kinds, kindLeases))
                            .int8(lease.toMillis()).text(workerId).text(queue).text(queue).int4(limit),
                    rs -> jobs.add(claimed(rs)));
            return inClaimOrder(jobs);
        });
    }

    /**
     * Claims from a queue with concurrency caps ({@link QueueSettings#capped()}): serialized with the
     * other claimers of the queue, within {@code settings}' cluster-wide and per-tenant caps. One
     * transaction of two statements: the queue's claim lock, then the claim.
     */
    public List<ClaimedJob> claimCapped(String queue, int limit, QueueSettings settings, Duration lease,
                                        Map<String, Duration> kindLeases, String workerId) throws SQLException {
        List<String> kinds = new ArrayList<>(kindLeases.keySet());
        return jdbc.transaction(c -> {
            Jdbc.execute(c, sql.get("queueClaimLock"), p -> p.text(queue));
            List<ClaimedJob> jobs = new ArrayList<>(limit);
            Jdbc.each(c, sql.get("jobClaimCapped"), p -> p
                            .text(queue).int4(limit).int4(settings.tenantMaxRunning()).int4(settings.maxRunning())
                            .array("text", kinds).array("bigint", leaseMillis(kinds, kindLeases))
                            .int8(lease.toMillis()).text(workerId),
                    rs -> jobs.add(claimed(rs)));
            return inClaimOrder(jobs);
        });
    }

    static Object[] leaseMillis(List<String> kinds, Map<String, Duration> kindLeases) {
        Object[] millis = new Object[kinds.size()];
        for (int i = 0; i < millis.length; i++) {
            millis[i] = kindLeases.get(kinds.get(i)).toMillis();
        }
        return millis;
    }

    static ClaimedJob claimed(ResultSet rs) throws SQLException {
        return new ClaimedJob(rs.getLong("id"), rs.getString("queue"), rs.getString("kind"), rs.getString("payload"),
                rs.getInt("payload_version"), rs.getInt("priority"), Jdbc.instant(rs, "run_at"), rs.getInt("attempt"),
                rs.getInt("max_attempts"), rs.getString("tenant"), rs.getString("metadata"),
                Jdbc.instant(rs, "lease_until"), rs.getString("sequence_key"));
    }

    /** UPDATE ... RETURNING comes in no particular order; handlers start in claim order. */
    static List<ClaimedJob> inClaimOrder(List<ClaimedJob> jobs) {
        jobs.sort((a, b) -> a.priority() != b.priority() ? Integer.compare(a.priority(), b.priority())
                : !a.runAt().equals(b.runAt()) ? a.runAt().compareTo(b.runAt()) : Long.compare(a.id(), b.id()));
        return jobs;
    }
}
