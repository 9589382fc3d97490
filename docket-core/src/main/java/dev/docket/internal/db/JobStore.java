package dev.docket.internal.db;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.DeadJobGroup;
import dev.docket.DeadJobReplay;
import dev.docket.JobError;
import dev.docket.JobInfo;
import dev.docket.JobState;
import dev.docket.JobSummary;
import dev.docket.QueueSettings;
import dev.docket.QueueStats;
import dev.docket.TenantRunning;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Runs Docket's statements ({@link Sql}) and maps their rows. Methods that take a {@link Connection}
 * run in the caller's transaction and never commit or close it; the others borrow a connection from
 * the data source for one short transaction.
 */
public final class JobStore {

    private final DataSource dataSource;
    private final Sql sql;
    private final Sql.KindsAndReplays kindsSql;
    private final ObjectMapper json;

    public JobStore(DataSource dataSource, SchemaName schema, ObjectMapper json) {
        this.dataSource = dataSource;
        this.sql = Sql.forSchema(schema);
        this.kindsSql = new Sql.KindsAndReplays(schema);
        this.json = json;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Inserts jobs in one statement, skipping those whose unique key a live job holds, and returns for
     * each input row, in order, its id and whether it was inserted. A bulk insert reserves its ids
     * first, so that rows are matched to ids by value rather than by the order of RETURNING.
     */
    public List<Inserted> jobInsertMany(Connection c, List<InsertRow> rows) throws SQLException {
        Inserted[] result = new Inserted[rows.size()];
        Long[] preset = new Long[rows.size()];
        List<Integer> pending = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            InsertRow row = rows.get(i);
            if (row.uniqueForMillis() != null) {
                // A key held for a period is taken before the job exists; while it is held, the
                // holder's id is the answer, even after that job finished.
                Long id = reserveIds(c, 1)[0];
                Long holder = uniqueKeyAcquire(c, row.uniqueKey(), id, row.uniqueForMillis());
                if (holder != null) {
                    result[i] = new Inserted(holder, false, false);
                    continue;
                }
                preset[i] = id;
            }
            pending.add(i);
        }
        // A unique key whose holder finishes between the insert and the look-up is free again, so
        // such rows go round once more; every round settles all rows without a key.
        for (int round = 0; !pending.isEmpty(); round++) {
            if (round > 100) {
                throw new SQLException("unique keys kept changing hands during enqueue; gave up after 100 rounds");
            }
            List<InsertRow> batch = pending.stream().map(rows::get).toList();
            Long[] ids = batch.size() == 1 ? new Long[] {null} : reserveIds(c, batch.size());
            for (int i = 0; i < batch.size(); i++) {
                if (preset[pending.get(i)] != null) {
                    ids[i] = preset[pending.get(i)];
                }
            }
            Map<Long, Boolean> inserted = batch.size() == 1 && ids[0] == null ? insertOne(c, batch.getFirst())
                    : insertWithIds(c, batch, ids);
            if (batch.size() == 1 && !inserted.isEmpty()) {
                ids[0] = inserted.keySet().iterator().next();
            }
            Map<String, Long> existing = findByUniqueKeys(c, batch, ids, inserted);
            List<Integer> retry = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                InsertRow row = batch.get(i);
                if (ids[i] != null && inserted.containsKey(ids[i])) {
                    result[pending.get(i)] = new Inserted(ids[i], true, inserted.get(ids[i]));
                } else if (existing.containsKey(row.uniqueKey())) {
                    long holder = existing.get(row.uniqueKey());
                    result[pending.get(i)] = new Inserted(holder, false, false);
                    if (row.uniqueForMillis() != null) {
                        uniqueKeyPoint(c, row.uniqueKey(), holder);
                    }
                } else {
                    retry.add(pending.get(i));
                }
            }
            pending = retry;
        }
        return List.of(result);
    }

    /** Takes {@code key} for {@code jobId} for a period; returns null if taken, else the current holder's id. */
    private Long uniqueKeyAcquire(Connection c, String key, long jobId, long periodMillis) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.uniqueKeyAcquire)) {
            ps.setString(1, key);
            ps.setLong(2, jobId);
            ps.setLong(3, periodMillis);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return null;
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement(sql.uniqueKeyHolder)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private void uniqueKeyPoint(Connection c, String key, long jobId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.uniqueKeyPoint)) {
            ps.setLong(1, jobId);
            ps.setString(2, key);
            ps.executeUpdate();
        }
    }

    /** Deletes up to {@code limit} unique keys whose period is over; returns how many. */
    public int uniqueKeyDeleteExpired(int limit) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.uniqueKeyDeleteExpired)) {
            ps.setInt(1, limit);
            return ps.executeUpdate();
        }
    }

    private Long[] reserveIds(Connection c, int count) throws SQLException {
        Long[] ids = new Long[count];
        try (PreparedStatement ps = c.prepareStatement(sql.jobReserveIds)) {
            ps.setInt(1, count);
            try (ResultSet rs = ps.executeQuery()) {
                for (int i = 0; rs.next(); i++) {
                    ids[i] = rs.getLong(1);
                }
            }
        }
        return ids;
    }

    /** Inserts one job with a fresh id; returns it with whether the job is ready now (empty: its unique key is held). */
    private Map<Long, Boolean> insertOne(Connection c, InsertRow r) throws SQLException {
        Map<Long, Boolean> inserted = new HashMap<>(2);
        try (PreparedStatement ps = c.prepareStatement(r.uniqueKey() == null ? sql.jobInsertOne : sql.jobInsertOneKeyed)) {
            ps.setString(1, r.queue());
            ps.setString(2, r.kind());
            ps.setString(3, r.payloadJson());
            ps.setInt(4, r.payloadVersion());
            ps.setShort(5, (short) r.priority());
            ps.setInt(6, r.maxAttempts());
            ps.setString(7, r.tenant());
            ps.setString(8, r.uniqueKey());
            ps.setString(9, r.metadataJson());
            ps.setObject(10, r.runAtMicros(), java.sql.Types.BIGINT);
            ps.setObject(11, r.delayMillis(), java.sql.Types.BIGINT);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    inserted.put(rs.getLong(1), rs.getBoolean(2));
                }
            }
        }
        return inserted;
    }

    /** Returns the inserted ids, each with whether the job is ready now. */
    private Map<Long, Boolean> insertWithIds(Connection c, List<InsertRow> rows, Long[] ids) throws SQLException {
        int n = rows.size();
        String[] queues = new String[n];
        String[] kinds = new String[n];
        String[] payloads = new String[n];
        Integer[] versions = new Integer[n];
        Short[] priorities = new Short[n];
        Long[] runAts = new Long[n];
        Long[] delays = new Long[n];
        Integer[] maxAttempts = new Integer[n];
        String[] tenants = new String[n];
        String[] uniqueKeys = new String[n];
        String[] metadata = new String[n];
        for (int i = 0; i < n; i++) {
            InsertRow r = rows.get(i);
            queues[i] = r.queue();
            kinds[i] = r.kind();
            payloads[i] = r.payloadJson();
            versions[i] = r.payloadVersion();
            priorities[i] = (short) r.priority();
            runAts[i] = r.runAtMicros();
            delays[i] = r.delayMillis();
            maxAttempts[i] = r.maxAttempts();
            tenants[i] = r.tenant();
            uniqueKeys[i] = r.uniqueKey();
            metadata[i] = r.metadataJson();
        }
        Map<Long, Boolean> inserted = new HashMap<>();
        boolean keyed = rows.stream().anyMatch(r -> r.uniqueKey() != null);
        try (PreparedStatement ps = c.prepareStatement(keyed ? sql.jobInsertManyKeyed : sql.jobInsertMany)) {
            ps.setArray(1, c.createArrayOf("bigint", ids));
            ps.setArray(2, c.createArrayOf("text", queues));
            ps.setArray(3, c.createArrayOf("text", kinds));
            ps.setArray(4, c.createArrayOf("text", payloads));
            ps.setArray(5, c.createArrayOf("int4", versions));
            ps.setArray(6, c.createArrayOf("int2", priorities));
            ps.setArray(7, c.createArrayOf("bigint", runAts));
            ps.setArray(8, c.createArrayOf("bigint", delays));
            ps.setArray(9, c.createArrayOf("int4", maxAttempts));
            ps.setArray(10, c.createArrayOf("text", tenants));
            ps.setArray(11, c.createArrayOf("text", uniqueKeys));
            ps.setArray(12, c.createArrayOf("text", metadata));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    inserted.put(rs.getLong(1), rs.getBoolean(2));
                }
            }
        }
        return inserted;
    }

    private Map<String, Long> findByUniqueKeys(Connection c, List<InsertRow> rows, Long[] ids,
                                               Map<Long, Boolean> inserted) throws SQLException {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            if ((ids[i] == null || !inserted.containsKey(ids[i])) && rows.get(i).uniqueKey() != null) {
                keys.add(rows.get(i).uniqueKey());
            }
        }
        Map<String, Long> found = new HashMap<>();
        if (keys.isEmpty()) {
            return found;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.jobFindByUniqueKeys)) {
            ps.setArray(1, c.createArrayOf("text", keys.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return found;
    }

    /** Queues a wake-up for each queue's idle workers, delivered when {@code c}'s transaction commits. */
    public void queueNotify(Connection c, Collection<String> queues) throws SQLException {
        if (queues.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.queueNotify)) {
            ps.setArray(1, c.createArrayOf("text", queues.toArray()));
            ps.execute();
        }
    }

    /** Claims up to {@code limit} ready jobs of a queue for {@code workerId}, in claim order. */
    public List<ClaimedJob> jobClaim(String queue, int limit, Duration lease, String workerId) throws SQLException {
        return jobClaim(queue, limit, lease, Map.of(), workerId);
    }

    /**
     * Claims up to {@code limit} ready jobs of a queue for {@code workerId}, in claim order; jobs of a
     * kind in {@code kindLeases} take that lease, the others {@code lease}.
     */
    public List<ClaimedJob> jobClaim(String queue, int limit, Duration lease, Map<String, Duration> kindLeases,
                                     String workerId) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.jobClaim)) {
                List<String> kinds = new ArrayList<>(kindLeases.keySet());
                ps.setArray(1, c.createArrayOf("text", kinds.toArray()));
                ps.setArray(2, c.createArrayOf("bigint", kinds.stream().map(k -> kindLeases.get(k).toMillis()).toArray()));
                ps.setLong(3, lease.toMillis());
                ps.setString(4, workerId);
                ps.setString(5, queue);
                ps.setString(6, queue);
                ps.setInt(7, limit);
                return claimed(ps, limit);
            }
        }
    }

    /**
     * Claims from a queue with concurrency caps ({@link QueueSettings#capped()}): serialized with the
     * other claimers of the queue, within {@code settings}' cluster-wide and per-tenant caps.
     */
    public List<ClaimedJob> jobClaimCapped(String queue, int limit, QueueSettings settings, Duration lease,
                                           Map<String, Duration> kindLeases, String workerId) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                try (PreparedStatement lock = c.prepareStatement(sql.queueClaimLock)) {
                    lock.setString(1, queue);
                    lock.execute();
                }
                List<ClaimedJob> jobs;
                try (PreparedStatement ps = c.prepareStatement(sql.jobClaimCapped)) {
                    ps.setString(1, queue);
                    ps.setInt(2, limit);
                    ps.setObject(3, settings.tenantMaxRunning(), java.sql.Types.INTEGER);
                    ps.setObject(4, settings.maxRunning(), java.sql.Types.INTEGER);
                    List<String> kinds = new ArrayList<>(kindLeases.keySet());
                    ps.setArray(5, c.createArrayOf("text", kinds.toArray()));
                    ps.setArray(6, c.createArrayOf("bigint", kinds.stream().map(k -> kindLeases.get(k).toMillis()).toArray()));
                    ps.setLong(7, lease.toMillis());
                    ps.setString(8, workerId);
                    jobs = claimed(ps, limit);
                }
                c.commit();
                return jobs;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static List<ClaimedJob> claimed(PreparedStatement ps, int limit) throws SQLException {
        List<ClaimedJob> jobs = new ArrayList<>(limit);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                jobs.add(new ClaimedJob(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getInt(5), rs.getInt(6), instant(rs, 7), rs.getInt(8), rs.getInt(9),
                        rs.getString(10), rs.getString(11), instant(rs, 12)));
            }
        }
        jobs.sort((a, b) -> a.priority() != b.priority() ? Integer.compare(a.priority(), b.priority())
                : !a.runAt().equals(b.runAt()) ? a.runAt().compareTo(b.runAt()) : Long.compare(a.id(), b.id()));
        return jobs;
    }

    /** Every queue with settings of its own. */
    public List<QueueSettings> queueList() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.queueList); ResultSet rs = ps.executeQuery()) {
                List<QueueSettings> queues = new ArrayList<>();
                while (rs.next()) {
                    queues.add(new QueueSettings(rs.getString(1), rs.getBoolean(2), (Integer) rs.getObject(3),
                            (Integer) rs.getObject(4), instant(rs, 5)));
                }
                return queues;
            }
        }
    }

    /** Pauses or resumes a queue cluster-wide, and wakes its workers. */
    public void queueSetPaused(String queue, boolean paused) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.queueSetPaused)) {
                ps.setString(1, queue);
                ps.setBoolean(2, paused);
                ps.executeQuery().close();
            }
        }
    }

    /** Sets a queue's cluster-wide caps (null: none), and wakes its workers. */
    public void queueSetLimits(String queue, Integer maxRunning, Integer tenantMaxRunning) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.queueSetLimits)) {
                ps.setString(1, queue);
                ps.setObject(2, maxRunning, java.sql.Types.INTEGER);
                ps.setObject(3, tenantMaxRunning, java.sql.Types.INTEGER);
                ps.executeQuery().close();
            }
        }
    }

    /**
     * Writes many outcomes of this worker's attempts in one transaction, one statement per kind of
     * outcome, and returns the fences that matched. A fence that did not match was lost (rescued,
     * cancelled, or already written): its outcome changed nothing.
     */
    public Set<Fence> writeOutcomes(String workerId, List<Outcome> outcomes, boolean keepHistory) throws SQLException {
        List<Fence> completed = new ArrayList<>();
        List<Outcome.Retry> retries = new ArrayList<>();
        List<Outcome.Dead> dead = new ArrayList<>();
        List<Outcome.Released> released = new ArrayList<>();
        List<Outcome.Snoozed> snoozed = new ArrayList<>();
        for (Outcome o : outcomes) {
            switch (o) {
                case Outcome.Completed done -> completed.add(done.fence());
                case Outcome.Retry retry -> retries.add(retry);
                case Outcome.Dead d -> dead.add(d);
                case Outcome.Released r -> released.add(r);
                case Outcome.Snoozed z -> snoozed.add(z);
            }
        }
        // One lock order (by id) for every statement, so two completers never wait on each other in a cycle.
        completed.sort(java.util.Comparator.comparingLong(Fence::id));
        retries.sort(java.util.Comparator.comparingLong(r -> r.fence().id()));
        dead.sort(java.util.Comparator.comparingLong(d -> d.fence().id()));
        released.sort(java.util.Comparator.comparingLong(r -> r.fence().id()));
        snoozed.sort(java.util.Comparator.comparingLong(z -> z.fence().id()));
        Set<Fence> applied = new HashSet<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                if (!completed.isEmpty()) {
                    collectFences(fenced(c, keepHistory ? sql.jobCompleteManyToHistory : sql.jobCompleteManyDiscard,
                            workerId, completed), applied);
                }
                if (!retries.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(sql.jobRetryMany)) {
                        ps.setArray(1, c.createArrayOf("bigint", retries.stream().map(r -> r.fence().id()).toArray()));
                        ps.setArray(2, c.createArrayOf("int4", retries.stream().map(r -> r.fence().attempt()).toArray()));
                        ps.setArray(3, c.createArrayOf("bigint", retries.stream().map(Outcome.Retry::delayMillis).toArray()));
                        ps.setArray(4, c.createArrayOf("text", retries.stream().map(Outcome.Retry::error).toArray()));
                        ps.setString(5, workerId);
                        collectFences(ps, applied);
                    }
                }
                if (!dead.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(sql.deadJobInsertFromJobs)) {
                        ps.setArray(1, c.createArrayOf("bigint", dead.stream().map(d -> d.fence().id()).toArray()));
                        ps.setArray(2, c.createArrayOf("int4", dead.stream().map(d -> d.fence().attempt()).toArray()));
                        ps.setArray(3, c.createArrayOf("text", dead.stream().map(Outcome.Dead::error).toArray()));
                        ps.setArray(4, c.createArrayOf("text", dead.stream().map(Outcome.Dead::reason).toArray()));
                        ps.setString(5, workerId);
                        collectFences(ps, applied);
                    }
                }
                if (!snoozed.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(sql.jobSnoozeMany)) {
                        ps.setArray(1, c.createArrayOf("bigint", snoozed.stream().map(z -> z.fence().id()).toArray()));
                        ps.setArray(2, c.createArrayOf("int4", snoozed.stream().map(z -> z.fence().attempt()).toArray()));
                        ps.setArray(3, c.createArrayOf("bigint", snoozed.stream().map(Outcome.Snoozed::delayMillis).toArray()));
                        ps.setString(4, workerId);
                        collectFences(ps, applied);
                    }
                }
                if (!released.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(sql.jobReleaseMany)) {
                        ps.setArray(1, c.createArrayOf("bigint", released.stream().map(r -> r.fence().id()).toArray()));
                        ps.setArray(2, c.createArrayOf("int4", released.stream().map(r -> r.fence().attempt()).toArray()));
                        ps.setArray(3, c.createArrayOf("int4", released.stream().map(r -> r.giveBackAttempt() ? 1 : 0).toArray()));
                        ps.setString(4, workerId);
                        collectFences(ps, applied);
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
        return applied;
    }

    private static PreparedStatement fenced(Connection c, String statement, String workerId, List<Fence> fences)
            throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        ps.setArray(1, c.createArrayOf("bigint", fences.stream().map(Fence::id).toArray()));
        ps.setArray(2, c.createArrayOf("int4", fences.stream().map(Fence::attempt).toArray()));
        ps.setString(3, workerId);
        return ps;
    }

    /** Reads the (id, attempt) fences a fenced statement matched. */
    private static void collectFences(PreparedStatement ps, Set<Fence> applied) throws SQLException {
        try (ps; ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                applied.add(new Fence(rs.getLong(1), rs.getInt(2)));
            }
        }
    }

    /** Extends the leases this worker still holds and returns their fences; the missing ones were lost. */
    public Set<Fence> jobHeartbeatMany(String workerId, List<Fence> fences, Duration lease) throws SQLException {
        return jobHeartbeatMany(workerId, fences, fences.stream().map(f -> lease).toList());
    }

    /**
     * Extends each lease this worker still holds by its own duration ({@code leases.get(i)} for
     * {@code fences.get(i)}) and returns the fences it held; the missing ones were lost.
     */
    public Set<Fence> jobHeartbeatMany(String workerId, List<Fence> fences, List<Duration> leases) throws SQLException {
        Set<Fence> held = new HashSet<>();
        if (fences.isEmpty()) {
            return held;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.jobHeartbeatMany)) {
                ps.setArray(1, c.createArrayOf("bigint", fences.stream().map(Fence::id).toArray()));
                ps.setArray(2, c.createArrayOf("int4", fences.stream().map(Fence::attempt).toArray()));
                ps.setArray(3, c.createArrayOf("bigint", leases.stream().map(Duration::toMillis).toArray()));
                ps.setString(4, workerId);
                ps.setArray(5, c.createArrayOf("bigint", fences.stream().map(Fence::id).toArray()));
                collectFences(ps, held);
            }
        }
        return held;
    }

    /** Makes up to {@code limit} due scheduled jobs ready, wakes their queues, and returns how many per queue. */
    public Map<String, Integer> jobPromoteDue(int limit) throws SQLException {
        Map<String, Integer> promoted = new HashMap<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.jobPromoteDue)) {
                ps.setInt(1, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        promoted.put(rs.getString(1), rs.getInt(2));
                    }
                }
            }
        }
        return promoted;
    }

    /** What one page of rescue did. */
    public record Rescue(int scanned, int rescued, int dead, long lastId, Set<String> queues) {
    }

    /**
     * Rescues one page of jobs whose lease expired, with ids above {@code afterId}: back to ready
     * with a "lost its lease" error, or to the dead-letter table when their attempts are used up.
     */
    public Rescue jobRescueExpired(long afterId, int pageSize) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                List<Long> ids = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(sql.jobExpiredLeases)) {
                    ps.setLong(1, afterId);
                    ps.setInt(2, pageSize);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            ids.add(rs.getLong(1));
                        }
                    }
                }
                if (ids.isEmpty()) {
                    c.commit();
                    return new Rescue(0, 0, 0, afterId, Set.of());
                }
                Array idArray = c.createArrayOf("bigint", ids.toArray());
                int dead = 0;
                try (PreparedStatement ps = c.prepareStatement(sql.deadJobInsertExpired)) {
                    ps.setArray(1, idArray);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            dead++;
                        }
                    }
                }
                int rescued = 0;
                Set<String> queues = new HashSet<>();
                try (PreparedStatement ps = c.prepareStatement(sql.jobRescueExpired)) {
                    ps.setArray(1, idArray);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rescued++;
                            queues.add(rs.getString(1));
                        }
                    }
                }
                queueNotify(c, queues);
                c.commit();
                return new Rescue(ids.size(), rescued, dead, ids.getLast(), queues);
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    public int historyCreatePartitions(int daysAhead) throws SQLException {
        return intQuery(sql.historyCreatePartitions, daysAhead);
    }

    /** Dead row versions in the jobs table, from the statistics system. */
    public long jobDeadRows() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.jobDeadRows);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Vacuums the jobs table; returns the server's warning when it skipped the table (SQLSTATE 42501:
     * this role may not vacuum it; 55P03: another vacuum or DDL holds it), else null.
     */
    public SQLWarning jobVacuum() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                st.execute(sql.jobVacuum);
                return st.getWarnings();
            }
        }
    }

    public int historyDropPartitions(Duration retention) throws SQLException {
        return intQuery(sql.historyDropPartitions, retention.toMillis());
    }

    /** Deletes up to {@code limit} dead jobs older than {@code retention}; returns how many. */
    public int deadJobDeleteExpired(Duration retention, int limit) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.deadJobDeleteExpired)) {
                ps.setLong(1, retention.toMillis());
                ps.setInt(2, limit);
                return ps.executeUpdate();
            }
        }
    }

    private int intQuery(String statement, long parameter) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                ps.setLong(1, parameter);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        }
    }

    /** Finds a job wherever it lives: the live table, the history or the dead-letter table. */
    public Optional<JobInfo> jobFind(long id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.jobFind)) {
                ps.setLong(1, id);
                ps.setLong(2, id);
                ps.setLong(3, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(jobInfo(rs));
                }
            }
        }
    }

    private JobInfo jobInfo(ResultSet rs) throws SQLException {
        // Columns: JOB_COLUMNS (1..15), state, finished_at, lease_until, locked_by, reason.
        return new JobInfo(rs.getLong(1), rs.getString(2), rs.getString(3),
                stateOf(rs.getString(16)), rs.getInt(6), rs.getInt(8), rs.getInt(9), instant(rs, 7),
                instant(rs, 14), instant(rs, 15), instant(rs, 17), rs.getString(10), rs.getString(11),
                rs.getString(19), rs.getString(20), rs.getInt(5), rs.getString(4), errors(rs.getString(13)),
                rs.getString(12));
    }

    private static JobState stateOf(String column) {
        return JobState.valueOf(column.toUpperCase(java.util.Locale.ROOT));
    }

    private List<JobError> errors(String errorsJson) throws SQLException {
        try {
            List<JobError> errors = new ArrayList<>();
            for (JsonNode e : json.readTree(errorsJson)) {
                errors.add(new JobError(e.path("attempt").asInt(), e.hasNonNull("at")
                        ? OffsetDateTime.parse(e.get("at").asText()).toInstant() : null,
                        e.path("error").asText(null), e.path("worker").asText(null)));
            }
            return errors;
        } catch (Exception e) {
            throw new SQLException("unreadable errors column: " + e.getMessage(), e);
        }
    }

    /**
     * Tries to take or renew {@code role} for {@code leaderId} for {@code ttl}; returns the term when
     * this node holds the role afterwards. {@code now} replaces the database clock (tests only), or null.
     */
    public Optional<Long> leaderAttemptElect(String role, String leaderId, Duration ttl, Instant now) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.leaderAttemptElect)) {
                // A renewal slower than a third of the lease is worth less than a retry.
                ps.setQueryTimeout((int) Math.max(1, ttl.toSeconds() / 3));
                ps.setString(1, role);
                ps.setString(2, leaderId);
                ps.setLong(3, ttl.toMillis());
                ps.setObject(4, now == null ? null : OffsetDateTime.ofInstant(now, java.time.ZoneOffset.UTC));
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
                }
            }
        }
    }

    /** Gives up {@code role} if {@code leaderId} holds it, so another node takes over without waiting. */
    public void leaderResign(String role, String leaderId) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.leaderResign)) {
                ps.setString(1, role);
                ps.setString(2, leaderId);
                ps.executeUpdate();
            }
        }
    }

    /** The current holder of {@code role} and its term, if its lease has not run out. */
    public Optional<Leader> leaderFind(String role) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.leaderFind)) {
                ps.setString(1, role);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new Leader(rs.getString(1), rs.getLong(2), instant(rs, 3), instant(rs, 4)))
                            : Optional.empty();
                }
            }
        }
    }

    /** A role's holder as the leaders table records it. */
    public record Leader(String leaderId, long term, Instant electedAt, Instant expiresAt) {
    }

    /**
     * Moves a live job to the history as cancelled and wakes the workers (a running one stops at its
     * next heartbeat). Returns the state it was cancelled from ('scheduled', 'ready', 'running'), or
     * empty when no live job has this id.
     */
    public Optional<String> jobCancel(long id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.jobCancel)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        }
    }

    /** One keyset page of jobs across the live, history and dead-letter tables. */
    public List<JobSummary> jobList(JobState state, String queue, String kind, Long before, int limit) throws SQLException {
        String stateColumn = state == null ? null : state.name().toLowerCase(java.util.Locale.ROOT);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.jobList)) {
                int i = 1;
                for (int table = 0; table < 3; table++) {
                    ps.setString(i++, stateColumn);
                    ps.setString(i++, stateColumn);
                    ps.setString(i++, queue);
                    ps.setString(i++, queue);
                    ps.setString(i++, kind);
                    ps.setString(i++, kind);
                    ps.setLong(i++, before == null ? Long.MAX_VALUE : before);
                }
                ps.setInt(i, limit);
                return summaries(ps);
            }
        }
    }

    /** One keyset page of dead jobs, optionally by kind and by text in their errors or reason. */
    public List<JobSummary> deadJobList(String kind, String errorContains, Long before, int limit) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.deadJobList)) {
                ps.setString(1, kind);
                ps.setString(2, kind);
                ps.setString(3, errorContains);
                ps.setString(4, errorContains);
                ps.setLong(5, before == null ? Long.MAX_VALUE : before);
                ps.setInt(6, limit);
                return summaries(ps);
            }
        }
    }

    private static List<JobSummary> summaries(PreparedStatement ps) throws SQLException {
        List<JobSummary> jobs = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                // Columns: id, queue, kind, priority, attempt, max_attempts, run_at, created_at, attempted_at,
                // tenant, state, finished_at, error_count, reason.
                jobs.add(new JobSummary(rs.getLong(1), rs.getString(2), rs.getString(3), stateOf(rs.getString(11)),
                        rs.getInt(4), rs.getInt(5), rs.getInt(6), instant(rs, 7), instant(rs, 8), instant(rs, 9),
                        instant(rs, 12), rs.getString(10), rs.getInt(13), rs.getString(14)));
            }
        }
        return jobs;
    }

    /** Dead jobs grouped by kind and error, largest groups first. */
    public List<DeadJobGroup> deadJobGroups(String kind, int limit) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.deadJobGroups)) {
            ps.setString(1, kind);
            ps.setString(2, kind);
            ps.setInt(3, limit);
            List<DeadJobGroup> groups = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    groups.add(new DeadJobGroup(rs.getString(1), rs.getString(2), rs.getLong(3), instant(rs, 4),
                            instant(rs, 5)));
                }
            }
            return groups;
        }
    }

    /** Puts dead jobs back to ready with a fresh attempt budget; returns the ids replayed. */
    public List<Long> deadJobReplay(List<Long> ids) throws SQLException {
        List<Long> replayed = new ArrayList<>();
        if (ids.isEmpty()) {
            return replayed;
        }
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.deadJobReplay)) {
                ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        replayed.add(rs.getLong(1));
                    }
                }
            }
        }
        return replayed;
    }

    /** Makes a scheduled job (future, or waiting out a backoff) ready now; false if it is not scheduled. */
    public boolean jobRunNow(long id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(sql.jobRunNow)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        }
    }

    /** Per queue and kind: live counts, lag, throughput, failures, dead-letter size and pickup latency. */
    public List<QueueStats> stats() throws SQLException {
        Map<List<String>, double[]> rows = new java.util.TreeMap<>(
                java.util.Comparator.comparing((List<String> k) -> k.get(0)).thenComparing(k -> k.get(1)));
        // Slots: scheduled, ready, running, lag, retriedLastMinute, completedLastMinute, p50, p99, dead,
        // deadLast24h, deadLastMinute; NaN marks an unknown percentile.
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            try {
                try (PreparedStatement ps = c.prepareStatement(sql.statsLive); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        double[] r = statsRow(rows, rs);
                        r[0] = rs.getLong(3);
                        r[1] = rs.getLong(4);
                        r[2] = rs.getLong(5);
                        r[3] = rs.getDouble(6);
                        r[4] = rs.getLong(7);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(sql.statsHistory); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        double[] r = statsRow(rows, rs);
                        r[5] = rs.getLong(3);
                        r[6] = rs.getObject(4) == null ? Double.NaN : rs.getDouble(4);
                        r[7] = rs.getObject(5) == null ? Double.NaN : rs.getDouble(5);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(sql.statsDead); ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        double[] r = statsRow(rows, rs);
                        r[8] = rs.getLong(3);
                        r[9] = rs.getLong(4);
                        r[10] = rs.getLong(5);
                    }
                }
                c.commit();
            } finally {
                if (!c.getAutoCommit()) {
                    c.rollback();
                }
            }
        }
        List<QueueStats> stats = new ArrayList<>();
        rows.forEach((key, r) -> stats.add(new QueueStats(key.get(0), key.get(1), (long) r[0], (long) r[1], (long) r[2],
                r[3], (long) r[5], (long) (r[4] + r[10]), (long) r[8], (long) r[9],
                Double.isNaN(r[6]) ? null : r[6], Double.isNaN(r[7]) ? null : r[7])));
        return stats;
    }

    private static double[] statsRow(Map<List<String>, double[]> rows, ResultSet rs) throws SQLException {
        return rows.computeIfAbsent(List.of(rs.getString(1), rs.getString(2)), k -> {
            double[] r = new double[11];
            r[6] = Double.NaN;
            r[7] = Double.NaN;
            return r;
        });
    }

    /** Running jobs per queue and tenant (tenant null for jobs without one), most first within a queue. */
    public List<TenantRunning> statsRunningByTenant() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.statsRunningByTenant);
             ResultSet rs = ps.executeQuery()) {
            List<TenantRunning> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(new TenantRunning(rs.getString(1), rs.getString(2), rs.getLong(3)));
            }
            return rows;
        }
    }

    /** The database's clock. */
    public Instant dbNow() throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.dbNow);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return instant(rs, 1);
        }
    }

    /** The last enqueued slot of a periodic job, or empty when it was never seen. */
    public Optional<Instant> cronSlotFind(String name) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.cronSlotFind)) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(instant(rs, 1)) : Optional.empty();
            }
        }
    }

    /** Records a periodic job seen for the first time as having enqueued up to {@code slot}. */
    public void cronSlotInit(String name, Instant slot) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql.cronSlotInit)) {
            ps.setString(1, name);
            ps.setObject(2, OffsetDateTime.ofInstant(slot, java.time.ZoneOffset.UTC));
            ps.executeUpdate();
        }
    }

    /**
     * Enqueues {@code row} for {@code slot} if, and only if, this call moves the periodic job's last
     * slot forward to it, in one transaction; returns whether it did.
     */
    public boolean cronEnqueueSlot(String name, Instant slot, InsertRow row) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                OffsetDateTime at = OffsetDateTime.ofInstant(slot, java.time.ZoneOffset.UTC);
                try (PreparedStatement ps = c.prepareStatement(sql.cronSlotAdvance)) {
                    ps.setObject(1, at);
                    ps.setString(2, name);
                    ps.setObject(3, at);
                    if (ps.executeUpdate() == 0) {
                        c.rollback();
                        return false;
                    }
                }
                List<Inserted> inserted = jobInsertMany(c, List.of(row));
                if (inserted.getFirst().ready()) {
                    queueNotify(c, List.of(row.queue()));
                }
                c.commit();
                return true;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    /**
     * The schema version recorded by the migrator, 0 when Docket's tables do not exist. Neither
     * statement can fail on a missing table, so this is safe inside a caller's transaction.
     */
    public int schemaVersion(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.schemaVersionTable); ResultSet rs = ps.executeQuery()) {
            rs.next();
            if (rs.getString(1) == null) {
                return 0;
            }
        }
        try (PreparedStatement ps = c.prepareStatement(sql.schemaVersion); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    // ---------------------------------------------------------------------------------------------
    // Typed kinds (issue 10, section 3): the wait for a newer payload version, and dead-letter replays.
    // ---------------------------------------------------------------------------------------------

    /**
     * Puts back a job this worker holds whose payload version its handler cannot read yet, to come back
     * after {@code delayMillis}, its attempt given back and {@code reason} noted in its metadata.
     *
     * @return false if the claim was lost meanwhile (nothing changed)
     */
    public boolean jobAwaitNewerVersion(Fence fence, String workerId, long delayMillis, String reason)
            throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(kindsSql.jobAwaitNewerVersion)) {
                ps.setLong(1, delayMillis);
                ps.setString(2, reason);
                ps.setLong(3, fence.id());
                ps.setInt(4, fence.attempt());
                ps.setString(5, workerId);
                return ps.executeUpdate() == 1;
            }
        }
    }

    /** Records a new replay of the dead jobs matching the filter (see {@link dev.docket.DocketAdmin#startReplay}). */
    public DeadJobReplay deadJobReplayStart(String kind, String errorContains, Long before, double ratePerSecond,
                                            int max) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(kindsSql.deadJobReplayStart)) {
                ps.setString(1, kind);
                ps.setString(2, kind);
                ps.setString(3, errorContains);
                ps.setString(4, errorContains);
                ps.setLong(5, before == null ? Long.MAX_VALUE : before);
                ps.setInt(6, max);
                ps.setString(7, kind);
                ps.setString(8, errorContains);
                ps.setObject(9, before, java.sql.Types.BIGINT);
                ps.setDouble(10, ratePerSecond);
                ps.setInt(11, max);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return replay(rs);
                }
            }
        }
    }

    /** A running replay's turn: its filter, cursor, how many it may still look at, and the jobs it has earned. */
    public record ReplayTurn(long id, String kind, String errorContains, Long nextBefore, int remaining,
                             double credit) {
    }

    /** Gives every running replay its turn: the jobs it earned since its last (see the statement). */
    public List<ReplayTurn> deadJobReplayTurn() throws SQLException {
        List<ReplayTurn> turns = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(kindsSql.deadJobReplayTurn);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long nextBefore = rs.getLong(4);
                    turns.add(new ReplayTurn(rs.getLong(1), rs.getString(2), rs.getString(3),
                            rs.wasNull() ? null : nextBefore, rs.getInt(5), rs.getDouble(6)));
                }
            }
        }
        return turns;
    }

    /** Records a replay's progress after a turn; {@code finished} ends it. */
    public void deadJobReplayAdvance(long id, int scanned, int replayed, Long nextBefore, boolean finished)
            throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(kindsSql.deadJobReplayAdvance)) {
                ps.setInt(1, scanned);
                ps.setInt(2, replayed);
                ps.setObject(3, nextBefore, java.sql.Types.BIGINT);
                ps.setInt(4, scanned);
                ps.setBoolean(5, finished);
                ps.setBoolean(6, finished);
                ps.setLong(7, id);
                ps.executeUpdate();
            }
        }
    }

    public Optional<DeadJobReplay> deadJobReplayFind(long id) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(kindsSql.deadJobReplayFind)) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(replay(rs)) : Optional.empty();
                }
            }
        }
    }

    /** The newest replays first, at most {@code limit}. */
    public List<DeadJobReplay> deadJobReplayList(int limit) throws SQLException {
        List<DeadJobReplay> replays = new ArrayList<>();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(kindsSql.deadJobReplayList)) {
                ps.setInt(1, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        replays.add(replay(rs));
                    }
                }
            }
        }
        return replays;
    }

    /** Deletes the replays that finished more than {@code retention} ago; returns how many. */
    public int deadJobReplayDeleteFinished(Duration retention) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement(kindsSql.deadJobReplayDeleteFinished)) {
                ps.setLong(1, retention.toMillis());
                return ps.executeUpdate();
            }
        }
    }

    private static DeadJobReplay replay(ResultSet rs) throws SQLException {
        // Columns: id, kind, error_contains, before_id, rate_per_second, max_jobs, matched, scanned, replayed,
        // state, created_at, finished_at.
        long before = rs.getLong(4);
        return new DeadJobReplay(rs.getLong(1), rs.getString(2), rs.getString(3), rs.wasNull() ? null : before,
                rs.getDouble(5), rs.getInt(6), rs.getInt(7), rs.getInt(8), rs.getInt(9),
                DeadJobReplay.State.valueOf(rs.getString(10).toUpperCase(java.util.Locale.ROOT)), instant(rs, 11),
                instant(rs, 12));
    }
}
