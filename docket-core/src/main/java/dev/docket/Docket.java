package dev.docket;

import com.cronutils.model.time.ExecutionTime;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.Inserted;
import dev.docket.internal.db.JobStore;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.migrate.Migrator;
import dev.docket.internal.notify.EnqueueNotifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job queue in PostgreSQL. One instance per application and schema; thread-safe.
 *
 * <pre>{@code
 * Docket docket = Docket.builder(dataSource).build();
 * docket.migrate();
 * long id = docket.enqueue("send_email", new SendEmail("a@b.c"));
 * try (Worker worker = docket.worker()
 *         .queue("default", 16)
 *         .handler("send_email", SendEmail.class, (email, ctx) -> mailer.send(email))
 *         .start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Jobs run at least once: see {@link JobHandler}. {@link #close()} stops the workers this
 * instance started; it does not close the data source.
 */
public final class Docket implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Docket.class);

    /** The longest kind name, in characters. */
    public static final int MAX_KIND_LENGTH = 255;

    private final DataSource dataSource;
    private final SchemaName schema;
    private final JobStore store;
    private final PayloadCodec codec;
    private final RetryPolicy defaultRetryPolicy;
    private final Map<String, RetryPolicy> retryPolicies;
    private final Map<String, Integer> payloadVersions;
    private final Map<String, JobOptions> kindDefaults;
    private final List<CronEnqueuer.Schedule> schedules;
    private final Duration historyRetention;
    private final Duration deadJobRetention;
    private final Duration migrationLockTimeout;
    private final EnqueueNotifier enqueueNotifier;
    private final List<Worker> workers = new CopyOnWriteArrayList<>();
    private volatile boolean schemaChecked;

    private Docket(Builder b) {
        this.dataSource = b.dataSource;
        this.schema = new SchemaName(b.schema);
        this.codec = new PayloadCodec(b.objectMapper, b.maxPayloadBytes);
        this.store = new JobStore(dataSource, schema, b.objectMapper);
        this.defaultRetryPolicy = b.defaultRetryPolicy;
        this.retryPolicies = Map.copyOf(b.retryPolicies);
        this.payloadVersions = Map.copyOf(b.payloadVersions);
        this.kindDefaults = Map.copyOf(b.kindDefaults);
        this.schedules = b.periodic.stream().map(p -> new CronEnqueuer.Schedule(p.name(),
                ExecutionTime.forCron(p.parsedCron()), p.zone(), row(p.kind(), p.payload(), p.options()))).toList();
        this.historyRetention = b.historyRetention;
        this.deadJobRetention = b.deadJobRetention;
        this.migrationLockTimeout = b.migrationLockTimeout;
        this.enqueueNotifier = b.notifyOnEnqueue ? new EnqueueNotifier(store, b.notifyWindow) : null;
    }

    /** Starts configuring a Docket on {@code dataSource} (a pool such as HikariCP is recommended). */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The schema Docket's tables live in. */
    public String schema() {
        return schema.name();
    }

    /**
     * Creates or upgrades Docket's tables to the version this build supports. Safe to call from many
     * nodes at once (they serialize on an advisory lock); does nothing when the schema is current.
     *
     * @return how many migrations were applied
     * @throws DocketException if the schema is newer than this build, or a migration fails
     */
    public int migrate() {
        try {
            int applied = new Migrator(dataSource, schema, migrationLockTimeout).migrate();
            schemaChecked = true;
            return applied;
        } catch (SQLException e) {
            throw new DocketException("docket: migrating schema " + schema.name() + " failed: " + e.getMessage(), e);
        }
    }

    /** The whole schema as one SQL script, for teams that apply migrations with Flyway or Liquibase. */
    public String migrationSql() {
        return new Migrator(dataSource, schema, migrationLockTimeout).sql();
    }

    /** The schema version this build works with. */
    public static int supportedSchemaVersion() {
        return Migrator.supportedVersion();
    }

    /** The schema version in the database; 0 when Docket's tables do not exist. */
    public int schemaVersion() {
        try (Connection c = dataSource.getConnection()) {
            return store.schemaVersion(c);
        } catch (SQLException e) {
            throw new DocketException("docket: cannot read the schema version: " + e.getMessage(), e);
        }
    }

    /**
     * Throws a message saying what to run unless the database schema is the version this build needs.
     * Checked once per instance, with statements that cannot fail, so a check inside a caller's
     * transaction never aborts it.
     */
    void requireSchema(Connection c) throws SQLException {
        if (schemaChecked) {
            return;
        }
        int found = store.schemaVersion(c);
        int wanted = supportedSchemaVersion();
        if (found < wanted) {
            throw new DocketException("docket: schema " + schema.name() + " is at version " + found
                    + " but this Docket needs version " + wanted
                    + ": run docket.migrate() (or `docket migrate`) before starting work");
        }
        if (found > wanted) {
            throw new DocketException("docket: schema " + schema.name() + " is at version " + found
                    + ", newer than this Docket supports (" + wanted + "): upgrade Docket on this node");
        }
        schemaChecked = true;
    }

    void requireSchema() {
        try (Connection c = dataSource.getConnection()) {
            requireSchema(c);
        } catch (SQLException e) {
            throw new DocketException("docket: cannot check the schema version: " + e.getMessage(), e);
        }
    }

    /** Enqueues a job with {@link JobOptions#defaults()} in its own transaction and returns its id. */
    public long enqueue(String kind, Object payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job in its own transaction and returns its id. With a unique key that a live job
     * already holds, nothing is inserted and that job's id is returned.
     *
     * @throws IllegalArgumentException for a bad kind or a payload that is not JSON-mappable or too large
     * @throws DocketException          when the database fails
     */
    public long enqueue(String kind, Object payload, JobOptions options) {
        return enqueueAll(List.of(NewJob.of(kind, payload, options))).getFirst();
    }

    /**
     * Enqueues a job inside the caller's transaction: the job exists if and only if that transaction
     * commits. Never commits, rolls back or closes {@code tx}; idle workers are woken at its commit.
     */
    public long enqueue(Connection tx, String kind, Object payload, JobOptions options) {
        return enqueueAll(tx, List.of(NewJob.of(kind, payload, options))).getFirst();
    }

    /**
     * Enqueues a job in its own transaction and says whether it inserted it or found a live job with
     * the same unique key.
     */
    public Enqueued enqueueWithResult(String kind, Object payload, JobOptions options) {
        return enqueueAllWithResult(List.of(NewJob.of(kind, payload, options))).getFirst();
    }

    /** Enqueues many jobs in one transaction of their own, in one insert; returns their ids in order. */
    public List<Long> enqueueAll(List<NewJob> jobs) {
        return enqueueAllWithResult(jobs).stream().map(Enqueued::id).toList();
    }

    /** Like {@link #enqueueAll(List)}, saying for each job whether it was inserted. */
    public List<Enqueued> enqueueAllWithResult(List<NewJob> jobs) {
        List<InsertRow> rows = rows(jobs);
        Set<String> readyQueues = new LinkedHashSet<>();
        try (Connection c = dataSource.getConnection()) {
            boolean single = rows.size() == 1;
            c.setAutoCommit(single);
            try {
                List<Enqueued> result = insert(c, rows, readyQueues);
                if (single) {
                    // The insert committed by itself: local workers first, then the notification's round trip.
                    wakeLocalWorkers(readyQueues);
                    notifyAfterCommit(c, readyQueues);
                } else {
                    notifyWorkers(c, readyQueues);
                    c.commit();
                    wakeLocalWorkers(readyQueues);
                }
                return result;
            } catch (SQLException | RuntimeException e) {
                if (!single) {
                    c.rollback();
                }
                throw e;
            }
        } catch (SQLException e) {
            throw new DocketException("docket: enqueue failed: " + e.getMessage(), e);
        }
    }

    /**
     * Enqueues many jobs inside the caller's transaction with one insert statement (not one per job),
     * and returns their ids in the order given. Never commits, rolls back or closes {@code tx}.
     */
    public List<Long> enqueueAll(Connection tx, List<NewJob> jobs) {
        return enqueueAllWithResult(tx, jobs).stream().map(Enqueued::id).toList();
    }

    /**
     * Like {@link #enqueueAll(Connection, List)}, saying for each job whether this call inserted it or
     * found a live job holding its unique key. A competing insert that is still uncommitted is waited
     * for: if it rolls back, this call inserts and says so.
     */
    public List<Enqueued> enqueueAllWithResult(Connection tx, List<NewJob> jobs) {
        Objects.requireNonNull(tx, "tx");
        List<InsertRow> rows = rows(jobs);
        try {
            Set<String> readyQueues = new LinkedHashSet<>();
            List<Enqueued> result = insert(tx, rows, readyQueues);
            notifyWorkers(tx, readyQueues);
            return result;
        } catch (SQLException e) {
            throw new DocketException("docket: enqueue failed: " + e.getMessage(), e);
        }
    }

    /** Inserts the rows; adds to {@code readyQueues} the queues that got jobs ready now. */
    private List<Enqueued> insert(Connection c, List<InsertRow> rows, Set<String> readyQueues) throws SQLException {
        if (rows.isEmpty()) {
            return List.of();
        }
        requireSchema(c);
        List<Inserted> inserted = store.jobInsertMany(c, rows);
        List<Enqueued> ids = new ArrayList<>(inserted.size());
        for (int i = 0; i < inserted.size(); i++) {
            ids.add(new Enqueued(inserted.get(i).id(), inserted.get(i).inserted()));
            if (inserted.get(i).ready()) {
                readyQueues.add(rows.get(i).queue());
            }
        }
        return ids;
    }

    /**
     * Notifies for a single enqueue that has already committed. Its failure must not fail the
     * enqueue: the caller would enqueue the job again. The workers' poll finds the job instead.
     */
    private void notifyAfterCommit(Connection c, Set<String> readyQueues) {
        try {
            notifyWorkers(c, readyQueues);
        } catch (SQLException e) {
            log.warn("docket: a job was enqueued but its notification failed; workers will find it at their next poll: {}",
                    e.getMessage());
        }
    }

    /** Sends (or schedules) the notifications for jobs just inserted on {@code c}, delivered at its commit. */
    private void notifyWorkers(Connection c, Set<String> readyQueues) throws SQLException {
        if (enqueueNotifier != null) {
            enqueueNotifier.afterInsert(c, readyQueues);
        }
    }

    private List<InsertRow> rows(List<NewJob> jobs) {
        Objects.requireNonNull(jobs, "jobs");
        List<InsertRow> rows = new ArrayList<>(jobs.size());
        for (NewJob job : jobs) {
            Objects.requireNonNull(job, "jobs must not contain null");
            rows.add(row(job.kind(), job.payload(), job.options()));
        }
        return rows;
    }

    private InsertRow row(String kind, Object payload, JobOptions given) {
        checkKind(kind);
        Objects.requireNonNull(given, "options");
        JobOptions options = given.withDefaults(kindDefaults.get(kind));
        String json = codec.toJson(payload);
        Long runAtMicros = options.runAt() == null ? null : epochMicros(options.runAt());
        Long delayMillis = options.delay() == null ? null : options.delay().toMillis();
        int maxAttempts = options.maxAttempts() != null ? options.maxAttempts() : retryPolicy(kind).maxAttempts();
        int version = options.payloadVersion() != null ? options.payloadVersion() : payloadVersions.getOrDefault(kind, 1);
        return new InsertRow(options.queue(), kind, json, version, options.priority(), runAtMicros, delayMillis,
                maxAttempts, options.tenant(), options.uniqueKey(),
                options.uniqueFor() == null ? null : options.uniqueFor().toMillis(), codec.metadataJson(options.metadata()));
    }

    /** {@link JobOptions.Builder#runAt} keeps {@code t} within the range PostgreSQL and this arithmetic hold. */
    private static long epochMicros(Instant t) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }

    static void checkKind(String kind) {
        if (kind == null || kind.isBlank() || kind.length() > MAX_KIND_LENGTH
                || !dev.docket.internal.text.TextRules.isName(kind)) {
            throw new IllegalArgumentException("kind must be 1 to " + MAX_KIND_LENGTH + " characters without control "
                    + "characters, invisible formatting characters (zero-width, bidirectional), separators other than "
                    + "the space, unassigned code points or unpaired surrogates, was " + JobOptions.describe(kind));
        }
    }

    /** Finds a job wherever it lives: waiting or running, completed or cancelled, or dead. */
    public Optional<JobInfo> job(long id) {
        try {
            return store.jobFind(id);
        } catch (SQLException e) {
            throw new DocketException("docket: looking up job " + id + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Cancels a job that has not finished: it moves to the history as {@link JobState#CANCELLED} and
     * never runs again. A running job's handler is interrupted when its worker next heartbeats (within
     * the heartbeat interval); whatever it reports afterwards is discarded.
     *
     * @return true if this call cancelled the job; false if no live job has this id (unknown, or
     *         already completed, cancelled or dead)
     */
    public boolean cancel(long id) {
        try {
            return store.jobCancel(id).isPresent();
        } catch (SQLException e) {
            throw new DocketException("docket: cancelling job " + id + " failed: " + e.getMessage(), e);
        }
    }

    /** Listings, statistics and dead-letter replay; see {@link DocketAdmin}. */
    public DocketAdmin admin() {
        return new DocketAdmin(store);
    }

    /** The retry policy of {@code kind}: the one configured for it, else the default. */
    public RetryPolicy retryPolicy(String kind) {
        return retryPolicies.getOrDefault(kind, defaultRetryPolicy);
    }

    /** Starts configuring a worker that runs jobs in this JVM. */
    public Worker.Builder worker() {
        return new Worker.Builder(this);
    }

    JobStore store() {
        return store;
    }

    PayloadCodec codec() {
        return codec;
    }

    SchemaName schemaName() {
        return schema;
    }

    List<CronEnqueuer.Schedule> schedules() {
        return schedules;
    }

    Duration historyRetention() {
        return historyRetention;
    }

    Duration deadJobRetention() {
        return deadJobRetention;
    }

    /**
     * Wakes this process's workers on queues that just got committed ready jobs. The notification
     * reaches them too, but only after a round trip through PostgreSQL and the listener thread; this
     * saves that in the common setup where a service both enqueues and works.
     */
    private void wakeLocalWorkers(Set<String> readyQueues) {
        for (String queue : readyQueues) {
            for (Worker w : workers) {
                w.jobsAvailable(queue);
            }
        }
    }

    void register(Worker worker) {
        workers.add(worker);
    }

    void unregister(Worker worker) {
        workers.remove(worker);
    }

    /**
     * Gracefully stops every worker started from this instance. Safe to call twice. Enqueueing and the
     * admin operations keep working afterwards (every enqueue then notifies at once).
     */
    @Override
    public void close() {
        for (Worker w : List.copyOf(workers)) {
            w.close();
        }
        if (enqueueNotifier != null) {
            enqueueNotifier.close();
        }
    }

    /** Configures a {@link Docket}; every option has a documented default. */
    public static final class Builder {
        private final DataSource dataSource;
        private String schema = "docket";
        private ObjectMapper objectMapper = PayloadCodec.defaultMapper();
        private int maxPayloadBytes = 256 * 1024;
        private RetryPolicy defaultRetryPolicy = RetryPolicy.defaults();
        private final Map<String, RetryPolicy> retryPolicies = new HashMap<>();
        private final Map<String, Integer> payloadVersions = new HashMap<>();
        private final List<PeriodicJob> periodic = new ArrayList<>();
        private final Map<String, JobOptions> kindDefaults = new HashMap<>();
        private Duration historyRetention = Duration.ofDays(7);
        private Duration deadJobRetention = Duration.ofDays(30);
        private Duration migrationLockTimeout = Duration.ofSeconds(10);
        private boolean notifyOnEnqueue = true;
        private Duration notifyWindow = Duration.ofMillis(5);

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The schema for Docket's tables, default {@code docket}: a lower-case identifier of up to 63 characters. */
        public Builder schema(String schema) {
            new SchemaName(schema);
            this.schema = schema;
            return this;
        }

        /**
         * The Jackson mapper for payloads. Default: Java time support, ISO dates, unknown properties
         * ignored (so adding a field to a payload does not break older workers).
         */
        public Builder objectMapper(ObjectMapper objectMapper) {
            this.objectMapper = Objects.requireNonNull(objectMapper, "objectMapper");
            return this;
        }

        /** The largest payload accepted, in bytes of JSON; default 256 KiB; from 2 bytes to 64 MiB. */
        public Builder maxPayloadBytes(int maxPayloadBytes) {
            if (maxPayloadBytes < 2 || maxPayloadBytes > 64 * 1024 * 1024) {
                throw new IllegalArgumentException("maxPayloadBytes must be between 2 and 67108864, was " + maxPayloadBytes);
            }
            this.maxPayloadBytes = maxPayloadBytes;
            return this;
        }

        /** The retry policy of kinds without their own; default {@link RetryPolicy#defaults()}. */
        public Builder defaultRetryPolicy(RetryPolicy policy) {
            this.defaultRetryPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** The retry policy of one kind (its max attempts apply at enqueue, its backoff in workers). */
        public Builder retryPolicy(String kind, RetryPolicy policy) {
            checkKind(kind);
            retryPolicies.put(kind, Objects.requireNonNull(policy, "policy"));
            return this;
        }

        /**
         * The payload version jobs of {@code kind} are stamped with when {@link JobOptions} names none;
         * default 1. Bump it when the payload's shape changes, and give workers an upcaster from the
         * old version ({@link Worker.Builder#upcaster}) so jobs enqueued before the deploy still run.
         */
        public Builder payloadVersion(String kind, int version) {
            checkKind(kind);
            if (version < 1) {
                throw new IllegalArgumentException("payloadVersion must be >= 1, was " + version);
            }
            payloadVersions.put(kind, version);
            return this;
        }

        /**
         * Per-kind defaults for enqueue: the queue, priority, max attempts and tenant that jobs of
         * {@code kind} get when their own {@link JobOptions} leave them unset. Without it: queue
         * {@code default}, priority 0, the kind's retry policy's max attempts, no tenant.
         */
        public Builder kindDefaults(String kind, JobOptions defaults) {
            checkKind(kind);
            kindDefaults.put(kind, Objects.requireNonNull(defaults, "defaults"));
            return this;
        }

        /**
         * Enqueues a job on a cron schedule, exactly once per slot across the cluster (see
         * {@link PeriodicJob}); the maintenance leader does it. Declare the same schedules on every node.
         */
        public Builder periodic(PeriodicJob job) {
            Objects.requireNonNull(job, "job");
            if (periodic.stream().anyMatch(p -> p.name().equals(job.name()))) {
                throw new IllegalArgumentException("a periodic job named '" + job.name() + "' is already declared");
            }
            periodic.add(job);
            return this;
        }

        /**
         * How long completed and cancelled jobs stay in the history table, default 7 days; dropped a
         * day partition at a time. {@link Duration#ZERO} deletes jobs on completion instead.
         */
        public Builder historyRetention(Duration retention) {
            this.historyRetention = nonNegative("historyRetention", retention);
            return this;
        }

        /** How long dead jobs stay in the dead-letter table, default 30 days. */
        public Builder deadJobRetention(Duration retention) {
            this.deadJobRetention = nonNegative("deadJobRetention", retention);
            return this;
        }

        /** {@code lock_timeout} for each migration once it holds the migration lock; default 10 s. */
        public Builder migrationLockTimeout(Duration timeout) {
            this.migrationLockTimeout = positive("migrationLockTimeout", timeout);
            return this;
        }

        /**
         * Whether enqueues wake idle workers with {@code pg_notify}, default true; at most one
         * notification per queue per {@link #notifyWindow} from this process.
         */
        public Builder notifyOnEnqueue(boolean notify) {
            this.notifyOnEnqueue = notify;
            return this;
        }

        /** The per-queue notification rate limit window, default 5 ms. */
        public Builder notifyWindow(Duration window) {
            this.notifyWindow = positive("notifyWindow", window);
            return this;
        }

        public Docket build() {
            return new Docket(this);
        }

        static Duration positive(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }

        static Duration nonNegative(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative, was " + d);
            }
            return d;
        }
    }
}
