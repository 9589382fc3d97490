package dev.docket.internal.db;

import dev.docket.QueueSettings;
import dev.docket.RateLimit;
import dev.docket.RateLimitSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rate_limits table (limits on starts per period, per kind or queue) and rate_limit_windows (the
 * starts of each limit's last period, per bucket), and the claim of a queue that limits concern
 * (which also applies the queue's concurrency caps, if it has any).
 */
public record RateLimitQueries(Jdbc jdbc, Statements sql) {

    /** How many ready jobs beyond the wanted ones a rate-limited claim looks at, to pass jobs a budget refuses. */
    static final int LOOK_AHEAD = 256;

    /**
     * What a rate-limited claim got.
     *
     * @param jobs      the jobs claimed, in claim order
     * @param heldBack  whether a limit's bucket had no permit left after the claim (a job may be waiting for one)
     * @param nextPermit how long until the first of those buckets has a permit again (by the database
     *                  clock); null when none is out of permits
     * @param shortestPeriod the shortest period of the limits the claimed jobs count towards; null when none
     */
    public record Claim(List<ClaimedJob> jobs, boolean heldBack, Duration nextPermit, Duration shortestPeriod) {
    }

    /**
     * The use of one bucket of a limit over its last period.
     *
     * @param limit  the limit
     * @param bucket {@code ""}, or {@code "=" + tenant} for a tenant's budget
     * @param used   starts within the last period
     * @param nextAt when a permit frees if {@code used >= permits}
     * @param now    the database's clock at the reading
     */
    public record Usage(RateLimit limit, String bucket, long used, Instant nextAt, Instant now) {

        public long remaining() {
            return limit.permits() - used;
        }
    }

    /** Every limit, kinds first, by name. */
    public List<RateLimitSettings> list() throws SQLException {
        return jdbc.list(sql.get("rateLimitList"), Jdbc.NO_PARAMETERS,
                rs -> new RateLimitSettings(limit(rs), rs.getBoolean("edited"), Jdbc.instant(rs, "updated_at")));
    }

    /** Writes a node's declared limits, leaving those edited at run time as they are. */
    public void declare(Collection<RateLimit> limits) throws SQLException {
        if (limits.isEmpty()) {
            return;
        }
        List<RateLimit> all = List.copyOf(limits);
        jdbc.update(sql.get("rateLimitDeclare"), p -> p
                .array("text", all.stream().map(l -> scope(l.scope())).toList())
                .array("text", all.stream().map(RateLimit::name).toList())
                .array("int4", all.stream().map(RateLimit::permits).toList())
                .array("bigint", all.stream().map(l -> l.period().toMillis()).toList())
                .array("boolean", all.stream().map(RateLimit::perTenant).toList()));
    }

    /** Sets a limit at run time (it then stays over declarations until removed) and wakes the queues it concerns. */
    public void set(RateLimit limit) throws SQLException {
        jdbc.autoCommit(c -> {
            Jdbc.execute(c, sql.get("rateLimitSet"), p -> p.text(scope(limit.scope())).text(limit.name())
                    .int4(limit.permits()).int8(limit.period().toMillis()).bool(limit.perTenant()));
            return null;
        });
    }

    /** Removes a limit; false if there was none. */
    public boolean remove(RateLimit.Scope scope, String name) throws SQLException {
        return jdbc.first(sql.get("rateLimitRemove"), p -> p.text(scope(scope)).text(name),
                rs -> rs.getLong("removed") > 0).orElse(false);
    }

    /** Whether a kind has a limit, a live worker that serves it, or any job, live, finished or dead. */
    public boolean knownKind(String kind) throws SQLException {
        return jdbc.first(sql.get("rateLimitKnownKind"), p -> p.text(kind).text(kind).text(kind).text(kind).text(kind),
                rs -> rs.getBoolean("known")).orElse(false);
    }

    /** The use of every bucket with starts in the last period of {@code limits} (for explain; no lock taken). */
    public List<Usage> usage(List<RateLimit> limits) throws SQLException {
        return jdbc.autoCommit(c -> {
            List<Usage> usage = new ArrayList<>();
            usage(c, limits, usage);
            return usage;
        });
    }

    /**
     * Claims up to {@code limit} ready jobs of {@code queue} within its own rate limit and those of {@code kinds}
     * (the kinds the worker has handlers for),
     * in one transaction: the limits' rows locked (serializing the claimers they concern), their
     * windows read, the claim, and its starts recorded. Commits without waiting for the WAL flush, as
     * every claim (the claim statement turns it off for its transaction).
     */
    public Claim claim(String queue, int limit, QueueSettings settings, Collection<String> kinds, Duration lease,
                       Map<String, Duration> kindLeases, String workerId) throws SQLException {
        List<String> leaseKinds = new ArrayList<>(kindLeases.keySet());
        return jdbc.transaction(c -> {
            List<RateLimit> limits = Jdbc.list(c, sql.get("rateLimitLock"), p -> p.text(queue).array("text", kinds),
                    RateLimitQueries::limit);
            List<Usage> usage = new ArrayList<>();
            Instant claimTime = usage(c, limits, usage);
            Map<Bucket, Usage> used = new HashMap<>();
            usage.forEach(u -> used.put(new Bucket(u.limit(), u.bucket()), u));
            Budgets budgets = new Budgets();
            limits.forEach(l -> budgets.limit(scope(l.scope()), l.name(), l.perTenant(), l.permits()));
            used.values().forEach(u -> budgets.bucket(scope(u.limit().scope()), u.limit().name(), u.bucket(),
                    (int) Math.max(0, u.remaining())));
            if (settings.capped()) {
                caps(c, queue, settings, budgets);
            }
            List<ClaimedJob> jobs = new ArrayList<>(limit);
            if (!queueExhausted(limits, used)) {
                Jdbc.each(c, sql.get("jobClaimRateLimited"), p -> p
                                .array("text", budgets.scopes).array("text", budgets.names)
                                .array("boolean", budgets.perTenant).array("int4", budgets.permits)
                                .array("text", budgets.bucketScopes).array("text", budgets.bucketNames)
                                .array("text", budgets.buckets).array("int4", budgets.remaining)
                                .text(queue).int4(limit + LOOK_AHEAD).timestamptz(claimTime)
                                .array("text", leaseKinds).array("bigint", JobClaimQueries.leaseMillis(leaseKinds, kindLeases))
                                .int8(lease.toMillis()).text(workerId).int4(limit),
                        rs -> jobs.add(JobClaimQueries.claimed(rs)));
            }
            Map<Bucket, Integer> taken = starts(limits, jobs, queue);
            record(c, taken, claimTime);
            return heldBack(c, queue, limit, JobClaimQueries.inClaimOrder(jobs), used, taken);
        });
    }

    /**
     * A capped queue's caps as budgets of the claim: the cluster-wide cap less the running jobs, and
     * each tenant's cap less its running jobs (jobs without a tenant have no tenant cap). Its claimers
     * serialize on the queue's claim lock, as those of {@link JobClaimQueries#claimCapped}.
     */
    private void caps(Connection c, String queue, QueueSettings settings, Budgets budgets) throws SQLException {
        Jdbc.execute(c, sql.get("queueClaimLock"), p -> p.text(queue));
        Map<String, Long> running = new HashMap<>();
        long total = 0;
        for (Map.Entry<String, Long> r : Jdbc.list(c, sql.get("jobRunningInQueue"), p -> p.text(queue),
                rs -> Map.entry(bucket(true, rs.getString("tenant")), rs.getLong("running")))) {
            running.put(r.getKey(), r.getValue());
            total += r.getValue();
        }
        if (settings.maxRunning() != null) {
            budgets.limit("cap", "queue", false, (int) Math.max(0, settings.maxRunning() - total));
            budgets.bucket("cap", "queue", "", (int) Math.max(0, settings.maxRunning() - total));
        }
        if (settings.tenantMaxRunning() != null) {
            int cap = settings.tenantMaxRunning();
            budgets.limit("cap", "tenant", true, cap);
            budgets.bucket("cap", "tenant", "", Integer.MAX_VALUE);
            running.forEach((bucket, n) -> {
                if (!bucket.isEmpty()) {
                    budgets.bucket("cap", "tenant", bucket, (int) Math.max(0, cap - n));
                }
            });
        }
    }

    /** The claim's budgets, as the parallel arrays jobClaimRateLimited takes. */
    private static final class Budgets {
        final List<String> scopes = new ArrayList<>();
        final List<String> names = new ArrayList<>();
        final List<Boolean> perTenant = new ArrayList<>();
        final List<Integer> permits = new ArrayList<>();
        final List<String> bucketScopes = new ArrayList<>();
        final List<String> bucketNames = new ArrayList<>();
        final List<String> buckets = new ArrayList<>();
        final List<Integer> remaining = new ArrayList<>();

        void limit(String scope, String name, boolean tenant, int n) {
            scopes.add(scope);
            names.add(name);
            perTenant.add(tenant);
            permits.add(n);
        }

        void bucket(String scope, String name, String bucket, int n) {
            bucketScopes.add(scope);
            bucketNames.add(name);
            buckets.add(bucket);
            remaining.add(n);
        }
    }

    /** One budget: a limit, and {@code ""} or a tenant's bucket ({@link #bucket}). */
    private record Bucket(RateLimit limit, String bucket) {
    }

    private static boolean queueExhausted(List<RateLimit> limits, Map<Bucket, Usage> used) {
        return limits.stream().filter(l -> l.scope() == RateLimit.Scope.QUEUE && !l.perTenant())
                .map(l -> used.get(new Bucket(l, ""))).anyMatch(u -> u != null && u.remaining() <= 0);
    }

    /** The claimed jobs' starts per bucket of the limits they count towards. */
    private static Map<Bucket, Integer> starts(List<RateLimit> limits, List<ClaimedJob> jobs, String queue) {
        Map<Bucket, Integer> taken = new HashMap<>();
        for (ClaimedJob job : jobs) {
            for (RateLimit l : limits) {
                if (l.scope() == RateLimit.Scope.QUEUE ? l.name().equals(queue) : l.name().equals(job.kind())) {
                    taken.merge(new Bucket(l, bucket(l, job.tenant())), 1, Integer::sum);
                }
            }
        }
        return taken;
    }

    private void record(Connection c, Map<Bucket, Integer> taken, Instant claimTime) throws SQLException {
        if (taken.isEmpty()) {
            return;
        }
        List<Bucket> keys = List.copyOf(taken.keySet());
        Jdbc.execute(c, sql.get("rateLimitRecordStarts"), p -> p.timestamptz(claimTime)
                .array("text", keys.stream().map(k -> scope(k.limit().scope())).toList())
                .array("text", keys.stream().map(k -> k.limit().name()).toList())
                .array("text", keys.stream().map(Bucket::bucket).toList())
                .array("bigint", keys.stream().map(k -> k.limit().period().toMillis()).toList())
                .array("int4", keys.stream().map(taken::get).toList()));
    }

    /**
     * Whether a bucket has no permit left after the claim, and when the first such has one again: a
     * bucket that was out before the claim at the time its usage says; one this claim emptied after
     * one emission interval (period / permits) at the least, when the next claim reads its usage.
     */
    private Claim heldBack(Connection c, String queue, int limit, List<ClaimedJob> jobs, Map<Bucket, Usage> used,
                           Map<Bucket, Integer> taken) throws SQLException {
        Duration next = null;
        List<Bucket> out = new ArrayList<>();
        for (Usage u : used.values()) {
            if (u.remaining() <= 0) {
                out.add(new Bucket(u.limit(), u.bucket()));
                next = min(next, u.nextAt() == null ? u.limit().period() : Duration.between(u.now(), u.nextAt()));
            }
        }
        for (Map.Entry<Bucket, Integer> t : taken.entrySet()) {
            Usage u = used.get(t.getKey());
            RateLimit l = t.getKey().limit();
            if ((u == null ? l.permits() : u.remaining()) - t.getValue() <= 0) {
                out.add(t.getKey());
                next = min(next, l.period().dividedBy(l.permits()));
            }
        }
        Duration shortest = taken.keySet().stream().map(b -> b.limit().period()).min(Duration::compareTo).orElse(null);
        if (next == null || jobs.size() < limit && !waiting(c, queue, out)) {
            return new Claim(jobs, false, null, shortest);
        }
        return new Claim(jobs, true, max(next, Duration.ofMillis(1)), shortest);
    }

    /**
     * Whether a ready job of {@code queue} waits for a permit of one of {@code buckets}: a claim that came
     * back short because of limits that concern none of the queue's jobs (another queue's kind) must not
     * make its producer look again at every permit.
     */
    private boolean waiting(Connection c, String queue, List<Bucket> buckets) throws SQLException {
        return Jdbc.first(c, sql.get("jobRateLimitWaiting"), p -> p.text(queue)
                        .array("text", buckets.stream().map(b -> scope(b.limit().scope())).toList())
                        .array("text", buckets.stream().map(b -> b.limit().name()).toList())
                        .array("boolean", buckets.stream().map(b -> b.limit().perTenant()).toList())
                        .array("text", buckets.stream().map(Bucket::bucket).toList()),
                rs -> rs.getBoolean("waiting")).orElse(false);
    }

    private static Duration min(Duration a, Duration b) {
        return a == null || b.compareTo(a) < 0 ? b : a;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Adds the use of {@code limits}' buckets to {@code into}; returns the claim's time (see rateLimitUsage). */
    private Instant usage(Connection c, List<RateLimit> limits, List<Usage> into) throws SQLException {
        Map<String, RateLimit> byName = new HashMap<>();
        limits.forEach(l -> byName.put(scope(l.scope()) + ":" + l.name(), l));
        Instant[] time = new Instant[1];
        Jdbc.each(c, sql.get("rateLimitUsage"), p -> p
                        .array("text", limits.stream().map(l -> scope(l.scope())).toList())
                        .array("text", limits.stream().map(RateLimit::name).toList())
                        .array("int4", limits.stream().map(RateLimit::permits).toList())
                        .array("bigint", limits.stream().map(l -> l.period().toMillis()).toList()),
                rs -> {
                    time[0] = Jdbc.instant(rs, "claim_time");
                    if (rs.getString("scope") != null) {
                        into.add(new Usage(byName.get(rs.getString("scope") + ":" + rs.getString("name")),
                                rs.getString("bucket"), rs.getLong("used"), Jdbc.instant(rs, "next_at"), time[0]));
                    }
                });
        return time[0];
    }

    /** The bucket of a job's tenant under {@code limit}: {@code ""} unless the limit is per tenant and the job has one. */
    public static String bucket(RateLimit limit, String tenant) {
        return bucket(limit.perTenant(), tenant);
    }

    private static String bucket(boolean perTenant, String tenant) {
        return perTenant && tenant != null ? "=" + tenant : "";
    }

    private static String scope(RateLimit.Scope scope) {
        return scope.name().toLowerCase(Locale.ROOT);
    }

    private static RateLimit limit(ResultSet rs) throws SQLException {
        return new RateLimit(RateLimit.Scope.valueOf(rs.getString("scope").toUpperCase(Locale.ROOT)), rs.getString("name"),
                rs.getInt("permits"), Duration.ofMillis(rs.getLong("period_ms")), rs.getBoolean("per_tenant"));
    }
}
