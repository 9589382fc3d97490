package dev.docket;

import static dev.docket.internal.db.Database.call;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.enqueue.JobInserter;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.migrate.Migrator;
import dev.docket.internal.migrate.SchemaGuard;
import dev.docket.internal.notify.EnqueueNotifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A job queue in PostgreSQL. One instance per application and schema; thread-safe.
 *
 * <pre>{@code
 * static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send_email", SendEmail.class).build();
 *
 * Docket docket = Docket.builder(dataSource).build();
 * docket.migrate();
 * Enqueued job = docket.enqueue(SEND_EMAIL, new SendEmail("a@b.c"));   // type-checked
 * try (Worker worker = docket.worker()
 *         .queue("default", 16)
 *         .handler(SEND_EMAIL, (email, ctx) -> mailer.send(email))
 *         .start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Kinds known only by name have the thin form: {@code enqueue("send_email", payload)} and
 * {@code handler("send_email", SendEmail.class, handler)}.
 *
 * <p>The forms without a {@link Connection} commit on their own, unless the builder was given
 * {@link Builder#externalTransactions} and the caller is inside such a transaction (Spring's
 * {@code @Transactional} with the starter): then they join it.
 *
 * <p>Jobs run at least once: see {@link JobHandler}. {@link #close()} stops the workers this
 * instance started; it does not close the data source.
 */
public final class Docket implements AutoCloseable {

    /** The longest kind name, in characters. */
    public static final int MAX_KIND_LENGTH = 255;

    private final DataSource dataSource;
    private final SchemaName schema;
    private final Database store;
    private final Kinds kinds;
    private final Shared shared;
    private final Duration migrationLockTimeout;
    private final JobInserter inserter;
    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    private Docket(Builder b) {
        this.dataSource = b.dataSource;
        this.schema = new SchemaName(b.schema);
        PayloadCodec codec = new PayloadCodec(b.objectMapper, b.maxPayloadBytes);
        this.store = new Database(dataSource, schema, b.objectMapper);
        this.kinds = b.kinds.build(codec, b.defaultRetryPolicy);
        SchemaGuard schemaGuard = new SchemaGuard(store, schema.name());
        List<CronEnqueuer.Schedule> schedules = b.periodic.stream().map(p -> new CronEnqueuer.Schedule(p.name(),
                CronEnqueuer.executionTime(p.cron()), p.zone(), kinds.row(NewJob.of(p.kind(), p.payload(), p.options()))))
                .toList();
        this.shared = new Shared(store, schema, codec, kinds, schemaGuard, schedules, b.historyRetention,
                b.deadJobRetention);
        this.migrationLockTimeout = b.migrationLockTimeout;
        this.inserter = new JobInserter(dataSource, store, schemaGuard::require,
                b.notifyOnEnqueue ? new EnqueueNotifier(store, b.notifyWindow) : null, this::wakeLocalWorkers,
                b.externalTransactions);
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
            shared.schemaGuard().markCurrent();
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
        return call("reading the schema version", store.schema()::version);
    }

    /*
     * Enqueue is one family: one job, one job with options, many jobs; each in its own transaction
     * or in the caller's (a Connection first). The typed forms take a JobKind and say, for every job,
     * whether it was inserted or a live job already held its unique key. The string-kind forms are
     * the thin form for kinds known only by name; the ones returning ids keep their signatures. All
     * of them end in enqueueRows(...), their rows made by {@link Kinds}.
     */

    /**
     * Enqueues a job of {@code kind} with the kind's defaults, in its own transaction.
     *
     * @return its id, and that it was inserted
     * @throws IllegalArgumentException for a payload that is not JSON-mappable or too large
     * @throws DocketException          when the database fails
     */
    public <T> Enqueued enqueue(JobKind<T> kind, T payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job of {@code kind} in its own transaction. Options left unset take the kind's
     * {@link JobKind#defaults()}, payload version and retry policy's max attempts. With a unique key
     * that a live job already holds, nothing is inserted and that job is returned.
     *
     * @throws IllegalArgumentException for a payload that is not JSON-mappable or too large
     * @throws DocketException          when the database fails
     */
    public <T> Enqueued enqueue(JobKind<T> kind, T payload, JobOptions options) {
        return enqueueRows(null, List.of(kinds.row(kind, payload, options))).getFirst();
    }

    /**
     * Enqueues many jobs of {@code kind} with the kind's defaults in one transaction of their own and
     * one insert; returns them in the order given.
     */
    public <T> List<Enqueued> enqueueAll(JobKind<T> kind, Collection<? extends T> payloads) {
        return enqueueRows(null, kinds.rows(kind, payloads));
    }

    /** Like {@link #enqueue(JobKind, Object)}, inside the caller's transaction (see {@link #enqueue(Connection, String, Object, JobOptions)}). */
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    /**
     * Like {@link #enqueue(JobKind, Object, JobOptions)}, inside the caller's transaction: the job
     * exists if and only if that transaction commits. Never commits, rolls back or closes {@code tx}.
     */
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload, JobOptions options) {
        return enqueueRows(Objects.requireNonNull(tx, "tx"), List.of(kinds.row(kind, payload, options))).getFirst();
    }

    /** Like {@link #enqueueAll(JobKind, Collection)}, inside the caller's transaction. */
    public <T> List<Enqueued> enqueueAll(Connection tx, JobKind<T> kind, Collection<? extends T> payloads) {
        return enqueueRows(Objects.requireNonNull(tx, "tx"), kinds.rows(kind, payloads));
    }

    /** Enqueues a job with {@link JobOptions#defaults()} in its own transaction and returns its id. */
    public long enqueue(String kind, Object payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job in its own transaction and returns its id. With a unique key that a live job
     * already holds, nothing is inserted and that job's id is returned. A kind declared or configured
     * on the {@link Builder} gets its settings.
     *
     * @throws IllegalArgumentException for a bad kind or a payload that is not JSON-mappable or too large
     * @throws DocketException          when the database fails
     */
    public long enqueue(String kind, Object payload, JobOptions options) {
        return enqueueWithResult(kind, payload, options).id();
    }

    /** Like {@link #enqueue(Connection, String, Object, JobOptions)} with {@link JobOptions#defaults()}. */
    public long enqueue(Connection tx, String kind, Object payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job inside the caller's transaction: the job exists if and only if that transaction
     * commits. Never commits, rolls back or closes {@code tx}; idle workers are woken at its commit.
     */
    public long enqueue(Connection tx, String kind, Object payload, JobOptions options) {
        return enqueueWithResult(tx, kind, payload, options).id();
    }

    /**
     * Enqueues a job in its own transaction and says whether it inserted it or found a live job with
     * the same unique key.
     */
    public Enqueued enqueueWithResult(String kind, Object payload, JobOptions options) {
        return enqueueRows(null, List.of(kinds.row(NewJob.of(kind, payload, options)))).getFirst();
    }

    /** Like {@link #enqueueWithResult(String, Object, JobOptions)}, inside the caller's transaction. */
    public Enqueued enqueueWithResult(Connection tx, String kind, Object payload, JobOptions options) {
        return enqueueRows(Objects.requireNonNull(tx, "tx"), List.of(kinds.row(NewJob.of(kind, payload, options)))).getFirst();
    }

    /**
     * Enqueues many jobs in one transaction of their own, in one insert; returns their ids in order.
     * Jobs of a {@link JobKind} are made with {@link NewJob#of(JobKind, Object, JobOptions)}.
     */
    public List<Long> enqueueAll(List<NewJob> jobs) {
        return enqueueAllWithResult(jobs).stream().map(Enqueued::id).toList();
    }

    /** Like {@link #enqueueAll(List)}, saying for each job whether it was inserted. */
    public List<Enqueued> enqueueAllWithResult(List<NewJob> jobs) {
        return enqueueRows(null, kinds.rows(jobs));
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
        return enqueueRows(Objects.requireNonNull(tx, "tx"), kinds.rows(jobs));
    }

    /** Inserts rows in a transaction of their own ({@code tx} null) or in the caller's. */
    private List<Enqueued> enqueueRows(Connection tx, List<InsertRow> rows) {
        try {
            return tx != null ? inserter.insert(tx, rows) : inserter.insertJoiningOrOwn(rows);
        } catch (SQLException e) {
            throw new DocketException("docket: enqueue failed: " + e.getMessage(), e);
        }
    }

    /** Finds a job wherever it lives: waiting or running, completed or cancelled, or dead. */
    public Optional<JobInfo> job(long id) {
        return call("looking up job " + id, () -> store.jobs().find(id));
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
        return call("cancelling job " + id, () -> store.jobs().cancel(id).isPresent());
    }

    /** Listings, statistics and dead-letter replay; see {@link DocketAdmin}. */
    public DocketAdmin admin() {
        return new DocketAdmin(store, shared.codec());
    }

    /**
     * The retry policy jobs of the string kind {@code kind} run with: its declared {@link JobKind}'s or
     * the one configured with {@link Builder#retryPolicy}, else the default. A {@link JobKind} used
     * directly carries its own ({@link JobKind#retryPolicy()}, else the default).
     */
    public RetryPolicy retryPolicy(String kind) {
        return kinds.retryPolicy(kind);
    }

    Shared shared() {
        return shared;
    }

    /** Starts configuring a worker that runs jobs in this JVM. */
    public Worker.Builder worker() {
        return new Worker.Builder(this);
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
        inserter.close();
    }

    /** Configures a {@link Docket}; every option has a documented default. */
    public static final class Builder {
        private final DataSource dataSource;
        private String schema = "docket";
        private ObjectMapper objectMapper = PayloadCodec.defaultMapper();
        private int maxPayloadBytes = 256 * 1024;
        private RetryPolicy defaultRetryPolicy = RetryPolicy.defaults();
        private final List<PeriodicJob> periodic = new ArrayList<>();
        private final Kinds.Declarations kinds = new Kinds.Declarations();
        private Duration historyRetention = Duration.ofDays(7);
        private Duration deadJobRetention = Duration.ofDays(30);
        private Duration migrationLockTimeout = Duration.ofSeconds(10);
        private boolean notifyOnEnqueue = true;
        private Duration notifyWindow = Duration.ofMillis(5);
        private ExternalTransactions externalTransactions;

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
            kinds.retryPolicy(kind, policy);
            return this;
        }

        /**
         * The payload version jobs of {@code kind} are stamped with when {@link JobOptions} names none;
         * default 1. Bump it when the payload's shape changes, and give workers an upcaster from the
         * old version ({@link Worker.Builder#upcaster}) so jobs enqueued before the deploy still run.
         */
        public Builder payloadVersion(String kind, int version) {
            kinds.payloadVersion(kind, version);
            return this;
        }

        /**
         * Per-kind defaults for enqueue: the queue, priority, max attempts and tenant that jobs of
         * {@code kind} get when their own {@link JobOptions} leave them unset (other options are
         * refused: they belong to one job). Without it: queue {@code default}, priority 0, the kind's
         * retry policy's max attempts, no tenant. {@link JobKind.Builder#defaults} declares the same
         * with the rest of a kind's settings.
         */
        public Builder kindDefaults(String kind, JobOptions defaults) {
            kinds.defaults(kind, defaults);
            return this;
        }

        /**
         * Declares a kind for the string forms too: {@code enqueue("send_email", payload)}, periodic
         * jobs of that kind, and {@code handler("send_email", type, handler)} then use its payload
         * version, defaults, retry policy, lease, timeout and upcasters, as
         * {@code enqueue(SEND_EMAIL, payload)} and {@code handler(SEND_EMAIL, handler)} always do.
         * Optional: a {@link JobKind} works without it. A declared kind's settings belong to it alone:
         * {@link #retryPolicy}, {@link #payloadVersion} and {@link #kindDefaults} for its name are refused.
         *
         * @throws IllegalArgumentException if a kind of that name is already declared
         */
        public Builder kind(JobKind<?> kind) {
            kinds.declare(kind);
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
            this.historyRetention = Checks.nonNegative("historyRetention", retention);
            return this;
        }

        /** How long dead jobs stay in the dead-letter table, default 30 days. */
        public Builder deadJobRetention(Duration retention) {
            this.deadJobRetention = Checks.nonNegative("deadJobRetention", retention);
            return this;
        }

        /** {@code lock_timeout} for each migration once it holds the migration lock; default 10 s. */
        public Builder migrationLockTimeout(Duration timeout) {
            this.migrationLockTimeout = Checks.positive("migrationLockTimeout", timeout);
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
            this.notifyWindow = Checks.positive("notifyWindow", window);
            return this;
        }

        /**
         * Makes the enqueue forms without a {@link Connection} join the caller's transaction when
         * {@code transactions} reports one (see {@link ExternalTransactions}); default none: they
         * always commit on their own. The Spring Boot starter sets this for Spring-managed transactions.
         */
        public Builder externalTransactions(ExternalTransactions transactions) {
            this.externalTransactions = Objects.requireNonNull(transactions, "transactions");
            return this;
        }

        /**
         * The Docket.
         *
         * @throws IllegalArgumentException if a kind declared with {@link #kind} is also given a retry
         *                                  policy, payload version or defaults here
         */
        public Docket build() {
            return new Docket(this);
        }
    }
}
