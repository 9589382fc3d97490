package dev.docket;

import static dev.docket.internal.db.Database.call;

import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.crypto.StoredValues;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.NetworkTimeout;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.enqueue.JobInserter;
import dev.docket.internal.enqueue.SignalSender;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.migrate.Migrator;
import dev.docket.internal.migrate.SchemaGuard;
import dev.docket.internal.notify.EnqueueNotifier;
import dev.docket.internal.observe.JobObserver;
import dev.docket.internal.observe.KindLabels;
import dev.docket.internal.observe.QueueGauges;
import dev.docket.internal.rules.CronRules;
import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.service.Lifecycle;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
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
public final class Docket implements Enqueuer, AutoCloseable {

    /** The longest kind name, in characters. */
    public static final int MAX_KIND_LENGTH = JobOptionRules.MAX_KIND_LENGTH;

    /** How many kinds the metrics name by default before reporting the rest as {@code other}. */
    public static final int DEFAULT_METRICS_KIND_LIMIT = 100;

    private final DataSource dataSource;
    private final SchemaName schema;
    private final Database store;
    private final KindRegistry kinds;
    private final DocketWiring wiring;
    private final Duration migrationLockTimeout;
    private final JobInserter inserter;
    private final Workflows workflows;
    private final SignalSender signals;
    /** Not a MeterRegistry field: reflection on Docket (a framework's bean introspection) must not need Micrometer. */
    private final Optional<MeterRegistry> meterRegistry;
    private final KindLabels kindLabels;
    /** The database-read gauges, refreshed while this instance is open; null without a registry or with them off. */
    private final Lifecycle gauges;
    private final List<Worker> workers = new CopyOnWriteArrayList<>();

    private Docket(Builder b) {
        this.dataSource = b.dataSource;
        this.schema = new SchemaName(b.schema);
        PayloadCodec codec = new PayloadCodec(b.objectMapper, b.maxPayloadBytes);
        this.store = new Database(dataSource, schema, b.objectMapper, new NetworkTimeout(b.networkTimeout));
        this.meterRegistry = Optional.ofNullable(b.meterRegistry);
        this.kindLabels = new KindLabels(b.metricsKindLimit);
        JobObserver observer = JobObserver.create(b.meterRegistry, kindLabels, b.openTelemetry);
        PayloadCrypto crypto = new PayloadCrypto(b.payloadKeys);
        this.kinds = b.kinds.build(codec, b.defaultRetryPolicy, observer, crypto);
        SchemaGuard schemaGuard = new SchemaGuard(store, schema.name());
        List<CronEnqueuer.Schedule> schedules = b.periodic.stream().map(p -> new CronEnqueuer.Schedule(p.name(), p.cron(),
                CronRules.executionTime(p.cron()), p.zone(),
                kinds.periodicRow(NewJob.of(p.kind(), p.payload(), p.options())), kinds.periodicPayload(p.kind())))
                .toList();
        EnqueueNotifier notifier = b.notifyOnEnqueue ? new EnqueueNotifier(store, b.notifyWindow) : null;
        this.signals = new SignalSender(store, schemaGuard::require, notifier, this::wakeLocalWorkers,
                b.externalTransactions, crypto);
        this.wiring = new DocketWiring(store, schema, codec, kinds, schemaGuard, schedules, b.historyRetention,
                b.deadJobRetention, observer, List.copyOf(b.rateLimits.values()), signals, crypto);
        this.migrationLockTimeout = b.migrationLockTimeout;
        this.inserter = new JobInserter(dataSource, store, schemaGuard::require, notifier, this::wakeLocalWorkers,
                b.externalTransactions);
        this.workflows = new Workflows(store, kinds, inserter);
        this.gauges = b.meterRegistry == null || !b.databaseGauges ? null
                : QueueGauges.of(b.meterRegistry, store, kindLabels, b.metricsInterval);
        if (gauges != null) {
            gauges.start();
        }
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
            wiring.schemaGuard().markCurrent();
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

    @Override
    public <T> Enqueued enqueue(JobKind<T> kind, T payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    @Override
    public <T> Enqueued enqueue(JobKind<T> kind, T payload, JobOptions options) {
        return insert(null, List.of(kinds.row(kind, payload, options))).getFirst();
    }

    @Override
    public <T> List<Enqueued> enqueueAll(JobKind<T> kind, Collection<? extends T> payloads) {
        return insert(null, kinds.rows(kind, payloads));
    }

    @Override
    public List<Enqueued> enqueueJobs(List<NewJob> jobs) {
        return insert(null, kinds.rows(jobs));
    }

    @Override
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    @Override
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload, JobOptions options) {
        return insert(Objects.requireNonNull(tx, "tx"), List.of(kinds.row(kind, payload, options))).getFirst();
    }

    @Override
    public <T> List<Enqueued> enqueueAll(Connection tx, JobKind<T> kind, Collection<? extends T> payloads) {
        return insert(Objects.requireNonNull(tx, "tx"), kinds.rows(kind, payloads));
    }

    @Override
    public List<Enqueued> enqueueJobs(Connection tx, List<NewJob> jobs) {
        return insert(Objects.requireNonNull(tx, "tx"), kinds.rows(jobs));
    }

    @Override
    public long enqueue(String kind, Object payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    @Override
    public long enqueue(String kind, Object payload, JobOptions options) {
        return insert(null, List.of(kinds.row(NewJob.of(kind, payload, options)))).getFirst().id();
    }

    @Override
    public List<Long> enqueueAll(List<NewJob> jobs) {
        return ids(enqueueJobs(jobs));
    }

    @Override
    public long enqueue(Connection tx, String kind, Object payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    @Override
    public long enqueue(Connection tx, String kind, Object payload, JobOptions options) {
        return insert(Objects.requireNonNull(tx, "tx"), List.of(kinds.row(NewJob.of(kind, payload, options))))
                .getFirst().id();
    }

    @Override
    public List<Long> enqueueAll(Connection tx, List<NewJob> jobs) {
        return ids(enqueueJobs(tx, jobs));
    }

    private static List<Long> ids(List<Enqueued> enqueued) {
        return enqueued.stream().map(Enqueued::id).toList();
    }

    /** Inserts rows in a transaction of their own ({@code tx} null, or joining an external one) or in the caller's. */
    private List<Enqueued> insert(Connection tx, List<InsertRow> rows) {
        try {
            return tx != null ? inserter.insert(tx, rows) : inserter.insertJoiningOrOwn(rows);
        } catch (SQLException e) {
            throw new DocketException("docket: enqueue failed: " + e.getMessage(), e);
        }
    }

    /**
     * Enqueues a workflow's steps as jobs that wait for each other, in one transaction of its own (an
     * enqueue that joins a transaction managed elsewhere takes {@link #enqueueWorkflow(Connection, Workflow)}).
     *
     * @return the workflow's id (for {@link DocketAdmin#workflow}) and each step's job
     */
    public WorkflowEnqueued enqueueWorkflow(Workflow workflow) {
        return workflows.enqueue(null, Objects.requireNonNull(workflow, "workflow"));
    }

    /**
     * Enqueues a workflow inside the caller's transaction: it exists (steps, jobs and all) if and only if
     * that transaction commits. Never commits, rolls back or closes {@code tx}.
     */
    public WorkflowEnqueued enqueueWorkflow(Connection tx, Workflow workflow) {
        return workflows.enqueue(Objects.requireNonNull(tx, "tx"),
                Objects.requireNonNull(workflow, "workflow"));
    }

    /** Enqueues a batch and its callbacks in one transaction of its own; see {@link Batch}. */
    public BatchEnqueued enqueueBatch(Batch batch) {
        return workflows.enqueue(null, Objects.requireNonNull(batch, "batch"));
    }

    /** Enqueues a batch and its callbacks inside the caller's transaction (never committed, rolled back or closed here). */
    public BatchEnqueued enqueueBatch(Connection tx, Batch batch) {
        return workflows.enqueue(Objects.requireNonNull(tx, "tx"), Objects.requireNonNull(batch, "batch"));
    }

    /**
     * Sends the signal {@code name} to job {@code jobId}, in a transaction of its own (or, with
     * {@link Builder#externalTransactions}, in the caller's transaction managed elsewhere, like enqueue).
     * If the job waits for this signal ({@link JobOptions.Builder#awaitSignal}, {@link JobContext#awaitSignal}),
     * the wait ends in that transaction and the job becomes ready (its workers are woken as for an enqueue);
     * each wait is ended by exactly one signal. If the job is live but not waiting for it, the signal is kept
     * with the job: its handler reads it ({@link JobContext#signal}), and its next wait for this name takes
     * it at once. Kept signals stay while the job is live (at most 100 per job that no wait took) and are
     * pruned with the job's history. The payload is treated like a job's: never logged, shown only to roles
     * that see payloads.
     *
     * @param payload any value Jackson writes as JSON, within {@code maxPayloadBytes}; {@code null} sends {@code {}}
     * @return what became of the signal
     * @throws IllegalArgumentException if {@code name} is not 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}
     *                                  ({@link JobOptions#SIGNAL_NAME}), or the payload cannot be written or is too large
     * @throws IllegalStateException    if the job already holds 100 kept signals
     * @throws EncryptedPayloadException if the job's payload is encrypted at rest and this Docket has no payload keys:
     *                                  its signals are encrypted too (the statement that sends the signal checks the
     *                                  job's row first), and nothing is sent in clear
     */
    public SignalDelivery signal(long jobId, String name, Object payload) {
        String json = signalPayload(name, payload);
        return sendSignal(jobId, name, () -> signals.sendJoiningOrOwn(jobId, name, json, null));
    }

    /**
     * Sends the signal {@code name} to job {@code jobId} inside the caller's transaction: it exists, and ends
     * the job's wait, if and only if that transaction commits (rolled back, it never arrives), so a signal can
     * be delivered with the business write that causes it. Never commits, rolls back or closes {@code tx}.
     * Otherwise as {@link #signal(long, String, Object)}.
     *
     * <p>The transaction must be READ COMMITTED (PostgreSQL's default): under REPEATABLE READ or SERIALIZABLE
     * it is refused ({@link IllegalStateException}), since its older snapshot could miss a wait committed
     * meanwhile. Until it ends it holds a lock that a worker putting this job to wait takes too: keep it
     * short, and in a transaction that signals several jobs, signal them in id order.
     */
    public SignalDelivery signal(Connection tx, long jobId, String name, Object payload) {
        Objects.requireNonNull(tx, "tx");
        String json = signalPayload(name, payload);
        return sendSignal(jobId, name, () -> signals.send(tx, jobId, name, json, null));
    }

    private String signalPayload(String name, Object payload) {
        JobOptionRules.checkSignalName(name);
        try {
            return wiring.codec().toJson(payload);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replaceFirst("^payload", "the payload of signal " + name), e);
        }
    }

    /** Runs a send; the database's refusals (too many kept signals, a snapshot too old) become IllegalStateException. */
    static SignalDelivery sendSignal(long jobId, String name, Database.Call<SignalDelivery> send) {
        try {
            return send.run();
        } catch (SQLException e) {
            if ("54000".equals(e.getSQLState()) || "25000".equals(e.getSQLState())) {
                throw new IllegalStateException("docket: sending signal " + name + " to job " + jobId
                        + " was refused: " + e.getMessage(), e);
            }
            throw new DocketException("docket: sending signal " + name + " to job " + jobId + " failed: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Finds a job wherever it lives: waiting or running, completed or cancelled, or dead. A job encrypted at rest
     * ({@link JobKind.Builder#encrypted}) has {@link JobInfo#payloadEncrypted()} true, and its payload, output and
     * signal payloads in clear where this Docket has their key ({@link Builder#payloadKeys}), {@code null} where it
     * has not; never the ciphertext.
     */
    public Optional<JobInfo> job(long id) {
        return call("looking up job " + id, () -> store.jobs().find(id))
                .map(job -> StoredValues.readable(job, wiring.crypto()));
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
        return new DocketAdmin(wiring, workflows);
    }

    /**
     * The retry policy jobs of the string kind {@code kind} run with: its declared {@link JobKind}'s or
     * the one configured with {@link Builder#retryPolicy}, else the default. A {@link JobKind} used
     * directly carries its own ({@link JobKind#retryPolicy()}, else the default).
     */
    public RetryPolicy retryPolicy(String kind) {
        return kinds.retryPolicy(kind);
    }

    DocketWiring wiring() {
        return wiring;
    }

    /**
     * The Micrometer registry given to {@link Builder#meterRegistry}, where Docket's meters are; empty
     * without one. A server that exposes this registry serves the library's metrics with its own.
     */
    public Optional<MeterRegistry> meterRegistry() {
        return meterRegistry;
    }

    /**
     * The {@code kind} label Docket's metrics give {@code kind}: the kind itself while it is among the
     * first {@link Builder#metricsKindLimit} kinds this instance has labelled, else {@code other}. For
     * metrics of your own that should agree with Docket's, and stay as bounded. Works without a registry.
     */
    public String metricsKindLabel(String kind) {
        return kindLabels.label(Objects.requireNonNull(kind, "kind"));
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
        if (gauges != null) {
            gauges.stop();
        }
    }

    /**
     * Configures a {@link Docket}; every option has a documented default (the options are declared in
     * the package-private {@code DocketOptions}, and documented on each method).
     */
    public static final class Builder extends DocketOptions {

        private Builder(DataSource dataSource) {
            super(dataSource);
        }

        /**
         * The longest Docket waits for the database to answer on a connection it borrowed (for enqueues,
         * claims, heartbeats, outcomes, maintenance, its LISTEN connection) before it gives the connection
         * up as broken, default 30 s; {@link Duration#ZERO} leaves the connections' own setting (such as
         * PgJDBC's {@code socketTimeout}). It is what turns a half-open connection (a cut network, a
         * database host that vanished without a reset) into an error that the services retry on a new
         * connection, instead of a wait without end. Keep it below the worker lease minus the heartbeat
         * interval so that a heartbeat stuck on such a connection is retried before its leases lapse, and
         * above the longest statement Docket runs on your data (a transactional handler's work runs on a
         * borrowed connection too). Migrations are exempt: they may wait for another node's lock.
         *
         * @throws IllegalArgumentException if negative, or positive but under 1 ms or over {@link Integer#MAX_VALUE} ms
         */
        public Builder networkTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "networkTimeout");
            new NetworkTimeout(timeout);
            this.networkTimeout = timeout;
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
