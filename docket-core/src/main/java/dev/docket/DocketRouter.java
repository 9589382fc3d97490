package dev.docket;

import static dev.docket.internal.db.Database.call;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.internal.db.DatabaseIdentity;
import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.rules.TextRules;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * Queues routed to several databases, each a {@link Docket} of its own: every queue lives in exactly
 * one database, and this object, built once at startup, says which.
 *
 * <pre>{@code
 * DocketRouter router = DocketRouter.builder()
 *         .database("orders", ordersDocket)                 // the first is the default database
 *         .database("imaging", imagingDocket)
 *         .route("orders", SEND_RECEIPT, INVOICE)           // each kind's queue lives in "orders"
 *         .route("imaging", THUMBNAIL)
 *         .routeQueue("ocr", "imaging")                     // or a queue by name
 *         .build();
 *
 * try (Connection tx = ordersDataSource.getConnection()) {
 *     tx.setAutoCommit(false);
 *     insertOrder(tx, order);
 *     router.enqueue(tx, SEND_RECEIPT, receipt);    // checked: tx is on "orders", where "email" lives
 *     tx.commit();
 * }
 * router.enqueue(THUMBNAIL, image);                 // own transaction, in "imaging"
 *
 * try (RoutedWorkers workers = router.worker()      // one Worker per database, each with its queues
 *         .queue("email", 16).queue("thumbnails", 8)
 *         .handler(SEND_RECEIPT, ...).handler(THUMBNAIL, ...)
 *         .start()) { ... }
 * }</pre>
 *
 * <p><b>What is refused, and when.</b> {@link Builder#build()} refuses a queue routed to two
 * databases, a kind whose queue is routed nowhere, and a kind declared twice with queues in two
 * databases. An enqueue refuses a job whose queue is routed nowhere ({@link IllegalArgumentException}),
 * a caller's transaction on another database than the job's queue ({@link IllegalArgumentException}
 * naming both databases: the job and the caller's rows would not commit together), a call whose jobs
 * span two databases (two transactions would not be atomic), and a queue being moved
 * ({@link QueueMove}; {@link DocketException}), so that no queue ever has jobs in two databases.
 *
 * <p><b>Which database a transaction is on</b> is read from the connection itself: the cluster's
 * system identifier (which a failover to a physical standby keeps) and the database's oid, never
 * from a URL. It is read once per physical connection and cached; a routed database's own identity is
 * read once and re-read before a mismatch is reported. {@link Docket} itself does no such check.
 *
 * <p><b>Across databases</b>, {@link #enqueueAcross} is the outbox: a job in the transaction's
 * database whose handler enqueues the job into its own database, idempotently.
 *
 * <p>Thread-safe. Enqueues without a transaction of the caller's cost what the routed Docket's do;
 * with one, the first use of each physical connection costs one catalog read.
 */
public final class DocketRouter implements Enqueuer {

    /** The queue outbox jobs wait in, in every database ({@link #enqueueAcross}); never routed. */
    public static final String OUTBOX_QUEUE = "docket_outbox";

    /** The kind of outbox jobs. */
    public static final String OUTBOX_KIND = "docket.outbox";

    /**
     * How long the key that makes a forward idempotent is held in the target database after the
     * forwarded job was enqueued: an outbox job re-run within it (its worker died after the forward
     * committed) finds the job it forwarded, even once that job finished.
     */
    public static final Duration OUTBOX_KEY_HELD_FOR = Duration.ofDays(30);

    /** Database names: they appear in URLs ({@code database/id}), metric labels and messages. */
    public static final Pattern DATABASE_NAME = Pattern.compile("[A-Za-z0-9_-]{1,63}");

    static final JobKind<OutboxEntry> OUTBOX = JobKind.of(OUTBOX_KIND, OutboxEntry.class)
            .defaults(KindDefaults.builder().queue(OUTBOX_QUEUE).build())
            .build();

    /** How long an outbox job whose target queue is being moved waits before it tries again. */
    private static final Duration OUTBOX_TRANSIT_WAIT = Duration.ofSeconds(5);

    private final Map<String, Target> databases;
    private final String defaultDatabase;
    /** Where each queue lives, and whether it is being moved: changed only by a {@link QueueMove}. */
    private final ConcurrentHashMap<String, Placement> queues;
    private final Map<String, JobKind<?>> kinds;
    /** Each physical connection's database, read once: a connection never changes database. */
    private final Map<Object, DatabaseIdentity> connections = Collections.synchronizedMap(new WeakHashMap<>());

    private DocketRouter(Builder b, Map<String, Placement> queues, Map<String, JobKind<?>> kinds) {
        this.databases = Collections.unmodifiableMap(new LinkedHashMap<>(b.databases));
        this.defaultDatabase = b.defaultDatabase != null ? b.defaultDatabase : b.databases.keySet().iterator().next();
        this.queues = new ConcurrentHashMap<>(queues);
        this.kinds = Map.copyOf(kinds);
    }

    /** Starts declaring the databases and routes. */
    public static Builder builder() {
        return new Builder();
    }

    /** The databases by name, in the order declared. */
    public Map<String, Docket> databases() {
        Map<String, Docket> out = new LinkedHashMap<>();
        databases.forEach((name, t) -> out.put(name, t.docket));
        return Collections.unmodifiableMap(out);
    }

    /** The default database's name: the first declared unless {@link Builder#defaultDatabase} says otherwise. */
    public String defaultDatabase() {
        return defaultDatabase;
    }

    /**
     * The Docket named {@code name}.
     *
     * @throws IllegalArgumentException when no database has that name
     */
    public Docket database(String name) {
        return target(name).docket;
    }

    /** The database {@code queue} is routed to, or empty for a queue routed nowhere. */
    public Optional<String> databaseOf(String queue) {
        Placement p = queues.get(Objects.requireNonNull(queue, "queue"));
        return Optional.ofNullable(p).map(Placement::database);
    }

    /** Every routed queue and its database, by queue name. */
    public Map<String, String> routes() {
        Map<String, String> out = new java.util.TreeMap<>();
        queues.forEach((q, p) -> out.put(q, p.database()));
        return Collections.unmodifiableMap(out);
    }

    /** The queues being moved, each with the database it is going to. */
    public Map<String, String> queuesInTransit() {
        Map<String, String> out = new java.util.TreeMap<>();
        queues.forEach((q, p) -> {
            if (p.movingTo() != null) {
                out.put(q, p.movingTo());
            }
        });
        return Collections.unmodifiableMap(out);
    }

    /**
     * The database jobs of {@code kind} are enqueued in: its queue's (with the kind's defaults, or for
     * a kind {@link JobKind#named by name} the queue declared for its name on this router or on a
     * routed Docket, else {@code default}).
     *
     * @throws IllegalArgumentException when that queue is routed nowhere
     */
    public String databaseOf(JobKind<?> kind) {
        String queue = queueOf(kind, JobOptions.defaults());
        return placement(queue, "kind '" + kind.name() + "'").database();
    }

    // --- the Enqueuer family: each call goes whole to the Docket of its jobs' queue ---

    @Override
    public <T> Enqueued enqueue(JobKind<T> kind, T payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    @Override
    public <T> Enqueued enqueue(JobKind<T> kind, T payload, JobOptions options) {
        return docketFor(null, queueOf(kind, options), kind.name()).enqueue(kind, payload, options);
    }

    @Override
    public <T> List<Enqueued> enqueueAll(JobKind<T> kind, Collection<? extends T> payloads) {
        return docketFor(null, queueOf(kind, JobOptions.defaults()), kind.name()).enqueueAll(kind, payloads);
    }

    @Override
    public List<Enqueued> enqueueJobs(List<NewJob> jobs) {
        return docketFor(null, jobs).enqueueJobs(jobs);
    }

    @Override
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    @Override
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload, JobOptions options) {
        Objects.requireNonNull(tx, "tx");
        return docketFor(tx, queueOf(kind, options), kind.name()).enqueue(tx, kind, payload, options);
    }

    @Override
    public <T> List<Enqueued> enqueueAll(Connection tx, JobKind<T> kind, Collection<? extends T> payloads) {
        Objects.requireNonNull(tx, "tx");
        return docketFor(tx, queueOf(kind, JobOptions.defaults()), kind.name()).enqueueAll(tx, kind, payloads);
    }

    @Override
    public List<Enqueued> enqueueJobs(Connection tx, List<NewJob> jobs) {
        Objects.requireNonNull(tx, "tx");
        return docketFor(tx, jobs).enqueueJobs(tx, jobs);
    }

    @Override
    public long enqueue(String kind, Object payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    @Override
    public long enqueue(String kind, Object payload, JobOptions options) {
        return docketFor(null, queueOfName(kind, options), kind).enqueue(kind, payload, options);
    }

    @Override
    public List<Long> enqueueAll(List<NewJob> jobs) {
        return docketFor(null, jobs).enqueueAll(jobs);
    }

    @Override
    public long enqueue(Connection tx, String kind, Object payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    @Override
    public long enqueue(Connection tx, String kind, Object payload, JobOptions options) {
        Objects.requireNonNull(tx, "tx");
        return docketFor(tx, queueOfName(kind, options), kind).enqueue(tx, kind, payload, options);
    }

    @Override
    public List<Long> enqueueAll(Connection tx, List<NewJob> jobs) {
        Objects.requireNonNull(tx, "tx");
        return docketFor(tx, jobs).enqueueAll(tx, jobs);
    }

    // --- across databases ---

    /** {@link #enqueueAcross(Connection, JobKind, Object, JobOptions)} with the kind's defaults. */
    public <T> Enqueued enqueueAcross(Connection tx, JobKind<T> kind, T payload) {
        return enqueueAcross(tx, kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job whose queue lives in another database than {@code tx}'s, through an outbox: an
     * outbox job ({@value #OUTBOX_KIND}, queue {@value #OUTBOX_QUEUE}) is enqueued in {@code tx}, so
     * it exists if and only if the caller's transaction commits, and a worker of that database
     * ({@link RoutedWorkers} serves the outbox queue) then enqueues the job in its own database with
     * the unique key {@code docket-outbox:<tx's database>:<outbox job id>}, held for
     * {@link #OUTBOX_KEY_HELD_FOR}: an outbox job that runs twice (its worker died between the forward
     * and its own completion) finds the job it forwarded instead of enqueueing a second. The forwarded
     * job is enqueued as {@code enqueue(kind, payload, options)} would, a short while after the commit
     * (a {@link JobOptions.Builder#delay delay} counts from the forward); it follows the queue's route
     * at that time, and waits while the queue is being moved.
     *
     * <p>When the job's queue lives in {@code tx}'s database, the job is enqueued in {@code tx}
     * directly, as {@link #enqueue(Connection, JobKind, Object, JobOptions)} would.
     *
     * @return the outbox job in {@code tx}'s database, or the job itself when it lives there
     * @throws IllegalArgumentException when {@code tx} is on no routed database, the job's queue is
     *                                  routed nowhere, or {@code options} set a unique key, a sequence
     *                                  or dependencies (the forward's key is the outbox's own, and a
     *                                  dependency cannot cross databases)
     */
    public <T> Enqueued enqueueAcross(Connection tx, JobKind<T> kind, T payload, JobOptions options) {
        Objects.requireNonNull(tx, "tx");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(options, "options");
        String queue = queueOf(kind, options);
        String targetName = placement(queue, "kind '" + kind.name() + "'").database();
        refuseInTransit(queue);
        String sourceName = databaseOfConnection(tx).orElseThrow(() -> new IllegalArgumentException(
                "docket: enqueueAcross needs a transaction on one of the routed databases "
                        + databases.keySet() + ", but it is on " + identityOf(tx, databases.get(defaultDatabase))));
        if (sourceName.equals(targetName)) {
            return enqueue(tx, kind, payload, options);
        }
        if (options.uniqueKey() != null || options.sequenceKey() != null || options.dependsOn().length > 0) {
            throw new IllegalArgumentException("docket: a job enqueued across databases takes no unique key, sequence "
                    + "or dependencies (its key is the outbox's own, and a dependency cannot cross databases)");
        }
        Docket target = target(targetName).docket;
        if (kind.encrypted() || target.wiring().kinds().encrypted(kind.name())) {
            throw new IllegalArgumentException("docket: kind '" + kind.name() + "' is encrypted at rest, and the outbox "
                    + "that carries a job across databases would hold its payload in clear: enqueue it in a transaction "
                    + "on database '" + targetName + "'");
        }
        JobOptions resolved = kind.byName() ? options : kind.resolve(options);
        JsonNode json = target.wiring().codec().readTree(target.wiring().codec().toJson(payload));
        OutboxEntry entry = new OutboxEntry(kind.name(), queue, json, resolved.payloadVersion(),
                resolved.priority(), resolved.runAt() == null ? null : resolved.runAt().toString(),
                resolved.delay() == null ? null : resolved.delay().toMillis(), resolved.maxAttempts(),
                resolved.tenant(), resolved.metadata());
        return target(sourceName).docket.enqueue(tx, OUTBOX, entry);
    }

    /** What an outbox job carries: the job to forward, its options resolved at enqueue. */
    record OutboxEntry(String kind, String queue, JsonNode payload, Integer payloadVersion, int priority,
                       String runAt, Long delayMillis, Integer maxAttempts, String tenant,
                       Map<String, String> metadata) {
    }

    /**
     * The handler of outbox jobs in database {@code source}: enqueues the job where its queue lives,
     * keyed by the outbox job's id, so that a second run finds what the first forwarded.
     */
    JobHandler<OutboxEntry> outboxHandler(String source) {
        target(source);
        return (entry, ctx) -> {
            Placement p = queues.get(entry.queue());
            if (p == null) {
                throw new PermanentJobFailure("queue '" + entry.queue() + "' of kind '" + entry.kind()
                        + "' is routed to no database of this router");
            }
            if (p.movingTo() != null) {
                ctx.snooze(OUTBOX_TRANSIT_WAIT);
                return;
            }
            JobOptions.Builder o = JobOptions.builder().queue(entry.queue()).priority(entry.priority())
                    .uniqueKey("docket-outbox:" + source + ":" + ctx.jobId()).uniqueFor(OUTBOX_KEY_HELD_FOR);
            if (entry.payloadVersion() != null) {
                o.payloadVersion(entry.payloadVersion());
            }
            if (entry.runAt() != null) {
                o.runAt(Instant.parse(entry.runAt()));
            }
            if (entry.delayMillis() != null) {
                o.delay(Duration.ofMillis(entry.delayMillis()));
            }
            if (entry.maxAttempts() != null) {
                o.maxAttempts(entry.maxAttempts());
            }
            if (entry.tenant() != null) {
                o.tenant(entry.tenant());
            }
            if (entry.metadata() != null) {
                entry.metadata().forEach(o::metadata);
            }
            target(p.database()).docket.enqueue(JobKind.named(entry.kind()), entry.payload(), o.build());
        };
    }

    // --- moving a queue ---

    /**
     * Starts moving {@code queue} to database {@code to}: from now on this router refuses enqueues
     * into the queue (and outbox jobs for it wait) until the move {@link QueueMove#complete completes}
     * or is {@link QueueMove#cancel cancelled}, so that the queue never has jobs in two databases. The
     * old database's workers keep working the queue until it is drained; see {@link QueueMove}.
     *
     * @throws IllegalArgumentException when the queue is routed nowhere, {@code to} is no database of
     *                                  this router or is the queue's own, or the queue has live jobs in {@code to}
     * @throws IllegalStateException    when the queue is already being moved
     */
    public QueueMove startMove(String queue, String to) {
        JobOptionRules.checkQueue(queue);
        Target target = target(to);
        Placement from = placement(queue, "queue '" + queue + "'");
        if (from.movingTo() != null) {
            throw new IllegalStateException("docket: queue '" + queue + "' is already being moved to '"
                    + from.movingTo() + "'");
        }
        if (from.database().equals(to)) {
            throw new IllegalArgumentException("docket: queue '" + queue + "' already lives in database '" + to + "'");
        }
        long there = target.docket.admin().liveJobs(queue);
        if (there > 0) {
            throw new IllegalArgumentException("docket: queue '" + queue + "' already has " + there
                    + " live jobs in database '" + to + "': it must live in one database only (see doctor)");
        }
        Placement moving = new Placement(from.database(), to);
        if (!queues.replace(queue, from, moving)) {
            throw new IllegalStateException("docket: queue '" + queue + "' changed while its move started; try again");
        }
        return new QueueMove(this, queue, from.database(), to);
    }

    /** Switches {@code queue} to {@code to} and ends its transit; the move's last step. */
    void finishMove(String queue, String from, String to, boolean switchRoute) {
        Placement moving = new Placement(from, to);
        Placement after = new Placement(switchRoute ? to : from, null);
        if (!queues.replace(queue, moving, after)) {
            throw new IllegalStateException("docket: queue '" + queue + "' is not being moved from '" + from
                    + "' to '" + to + "'");
        }
    }

    // --- routing ---

    private Docket docketFor(Connection tx, String queue, String kind) {
        Placement p = placement(queue, "kind '" + kind + "'");
        refuseInTransit(queue);
        if (tx != null) {
            requireSameDatabase(tx, p.database(), "kind '" + kind + "' (queue '" + queue + "')");
        }
        return target(p.database()).docket;
    }

    private Docket docketFor(Connection tx, List<NewJob> jobs) {
        Objects.requireNonNull(jobs, "jobs");
        if (jobs.isEmpty()) {
            return target(defaultDatabase).docket;
        }
        Set<String> databasesOfJobs = new LinkedHashSet<>();
        String first = null;
        for (NewJob job : jobs) {
            Objects.requireNonNull(job, "jobs must not contain null");
            String queue = queueOfName(job.kind(), job.options());
            databasesOfJobs.add(placement(queue, "kind '" + job.kind() + "'").database());
            refuseInTransit(queue);
            if (first == null) {
                first = queue;
            }
        }
        if (databasesOfJobs.size() > 1) {
            throw new IllegalArgumentException("docket: the jobs of one call go to one database, these go to "
                    + databasesOfJobs + ": enqueue them per database, or across with enqueueAcross");
        }
        String database = databasesOfJobs.iterator().next();
        if (tx != null) {
            requireSameDatabase(tx, database, "queue '" + first + "'");
        }
        return target(database).docket;
    }

    private void refuseInTransit(String queue) {
        Placement p = queues.get(queue);
        if (p != null && p.movingTo() != null) {
            throw new DocketException("docket: queue '" + queue + "' is being moved from database '" + p.database()
                    + "' to '" + p.movingTo() + "': enqueues are refused until the move completes");
        }
    }

    private Placement placement(String queue, String what) {
        Placement p = queues.get(queue);
        if (p == null) {
            throw new IllegalArgumentException("docket: " + what + " goes to queue '" + queue
                    + "', which is routed to no database; routed queues: " + routes().keySet());
        }
        return p;
    }

    private <T> String queueOf(JobKind<T> kind, JobOptions options) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(options, "options");
        return kind.byName() ? queueOfName(kind.name(), options) : kind.resolve(options).queue();
    }

    /** A kind known by name: the options' queue, else the one declared for the name here or on a routed Docket. */
    private String queueOfName(String kind, JobOptions options) {
        JobOptionRules.checkKind(kind);
        Objects.requireNonNull(options, "options");
        if (options.queueOrNull() != null) {
            return options.queueOrNull();
        }
        JobKind<?> declared = kinds.get(kind);
        if (declared == null) {
            for (Target t : databases.values()) {
                declared = t.docket.wiring().kinds().declared(kind);
                if (declared != null) {
                    break;
                }
            }
        }
        return declared == null ? JobOptions.defaults().queue() : declared.resolve(JobOptions.defaults()).queue();
    }

    private Target target(String name) {
        Target t = databases.get(Objects.requireNonNull(name, "database"));
        if (t == null) {
            throw new IllegalArgumentException("docket: no database named '" + name + "'; the router has "
                    + databases.keySet());
        }
        return t;
    }

    private void requireSameDatabase(Connection tx, String database, String what) {
        Target t = target(database);
        DatabaseIdentity actual = identityOf(tx, t);
        if (actual.sameDatabase(t.identity(false)) || actual.sameDatabase(t.identity(true))) {
            return;
        }
        String other = databaseOf(actual);
        throw new IllegalArgumentException("docket: " + what + " is routed to database '" + database + "' ("
                + t.identity(false) + "), but the transaction given is on "
                + (other != null ? "database '" + other + "' (" + actual + ")"
                        : actual + ", which this router does not route to")
                + ": the job would not commit with the transaction's rows. Enqueue it in a transaction of '"
                + database + "', or through the outbox with enqueueAcross");
    }

    /** The routed database {@code tx} is on, if any. */
    Optional<String> databaseOfConnection(Connection tx) {
        return Optional.ofNullable(databaseOf(identityOf(tx, target(defaultDatabase))));
    }

    private String databaseOf(DatabaseIdentity identity) {
        for (Map.Entry<String, Target> e : databases.entrySet()) {
            if (identity.sameDatabase(e.getValue().identity(false))) {
                return e.getKey();
            }
        }
        return null;
    }

    private DatabaseIdentity identityOf(Connection tx, Target reader) {
        Object physical = physical(tx);
        DatabaseIdentity known = physical == null ? null : connections.get(physical);
        if (known != null) {
            return known;
        }
        DatabaseIdentity read = call("reading which database the transaction is on",
                () -> reader.docket.wiring().store().schema().identity(tx));
        if (physical != null) {
            connections.put(physical, read);
        }
        return read;
    }

    /** The driver's connection under a pool's proxy (a pool hands out a new proxy per borrow); null if unknown. */
    private static Object physical(Connection tx) {
        try {
            return tx.isWrapperFor(org.postgresql.PGConnection.class) ? tx.unwrap(org.postgresql.PGConnection.class) : null;
        } catch (SQLException e) {
            return null;
        }
    }

    /** Where a queue lives, and the database it is being moved to (null when it is not). */
    private record Placement(String database, String movingTo) {
    }

    /** A routed database: its Docket and its identity, read once and re-read on a mismatch. */
    private static final class Target {
        final Docket docket;
        final AtomicReference<DatabaseIdentity> identity = new AtomicReference<>();

        Target(Docket docket) {
            this.docket = docket;
        }

        DatabaseIdentity identity(boolean reread) {
            DatabaseIdentity known = identity.get();
            if (known == null || reread) {
                known = call("reading which database a routed Docket is on", docket.wiring().store().schema()::identity);
                identity.set(known);
            }
            return known;
        }
    }

    // --- the doctor over all databases ---

    /** {@link #doctor(DoctorOptions)} with the default options. */
    public DatabasesDoctorReport doctor() {
        return doctor(DoctorOptions.defaults());
    }

    /** Runs the doctor on each routed database, and the checks across them; see {@link DatabasesDoctorReport}. */
    public DatabasesDoctorReport doctor(DoctorOptions options) {
        return doctor(databases(), options);
    }

    /**
     * Runs the doctor on each of {@code databases} (named as they should appear in findings), and the
     * two checks across them; for a server or a script that knows the databases but not the routes.
     *
     * @throws DocketException when a database cannot be read (the message names it)
     */
    public static DatabasesDoctorReport doctor(Map<String, Docket> databases, DoctorOptions options) {
        Objects.requireNonNull(options, "options");
        Map<String, DoctorReport> reports = new LinkedHashMap<>();
        Map<String, List<dev.docket.internal.db.JobQueries.LiveCount>> live = new LinkedHashMap<>();
        databases.forEach((name, docket) -> {
            try {
                reports.put(name, docket.admin().doctor(options));
                live.put(name, call("counting live jobs", docket.wiring().store().jobs()::countLiveByQueueAndKind));
            } catch (RuntimeException e) {
                throw new DocketException("docket: doctor of database '" + name + "': " + e.getMessage(), e);
            }
        });
        List<DoctorReport.Finding> across = new ArrayList<>();
        across.addAll(queuesInTwoDatabases(live));
        across.addAll(handlersInOtherDatabases(live, reports));
        return new DatabasesDoctorReport(reports, across);
    }

    private static List<DoctorReport.Finding> queuesInTwoDatabases(
            Map<String, List<dev.docket.internal.db.JobQueries.LiveCount>> live) {
        Map<String, Map<String, Long>> byQueue = new java.util.TreeMap<>();
        live.forEach((db, counts) -> counts.forEach(c -> {
            if (!c.queue().equals(OUTBOX_QUEUE)) {
                byQueue.computeIfAbsent(c.queue(), q -> new LinkedHashMap<>()).merge(db, c.live(), Long::sum);
            }
        }));
        List<DoctorReport.Finding> found = new ArrayList<>();
        byQueue.forEach((queue, dbs) -> {
            if (dbs.size() > 1) {
                found.add(new DoctorReport.Finding("queue_in_two_databases", DoctorReport.Severity.PROBLEM,
                        "queue " + queue, "queue '" + queue + "' has unfinished jobs in " + dbs.size()
                                + " databases: its order, caps, unique keys and sequences hold in none of them",
                        "unfinished jobs: " + dbs, "route the queue to one database (DocketRouter), let the others "
                                + "drain (QueueMove), and find what enqueued there"));
            }
        });
        if (found.isEmpty()) {
            found.add(new DoctorReport.Finding("queue_in_two_databases", DoctorReport.Severity.OK, "queues",
                    "every queue with unfinished jobs has them in one database", byQueue.size() + " queues", ""));
        }
        return found;
    }

    private static List<DoctorReport.Finding> handlersInOtherDatabases(
            Map<String, List<dev.docket.internal.db.JobQueries.LiveCount>> live, Map<String, DoctorReport> reports) {
        Map<String, Set<String>> handled = new LinkedHashMap<>();
        reports.forEach((db, r) -> {
            Set<String> kinds = new java.util.TreeSet<>();
            r.workers().stream().filter(WorkerInfo::live).forEach(w -> kinds.addAll(w.kinds().keySet()));
            handled.put(db, kinds);
        });
        List<DoctorReport.Finding> found = new ArrayList<>();
        live.forEach((db, counts) -> {
            Map<String, Long> kinds = new java.util.TreeMap<>();
            counts.forEach(c -> kinds.merge(c.kind(), c.live(), Long::sum));
            kinds.forEach((kind, n) -> {
                if (handled.get(db).contains(kind)) {
                    return;
                }
                List<String> elsewhere = handled.entrySet().stream()
                        .filter(e -> !e.getKey().equals(db) && e.getValue().contains(kind)).map(Map.Entry::getKey)
                        .toList();
                if (!elsewhere.isEmpty()) {
                    found.add(new DoctorReport.Finding("handler_in_other_database", DoctorReport.Severity.PROBLEM,
                            "kind " + kind, "kind '" + kind + "' has " + n + " unfinished jobs in database '" + db
                                    + "' but a handler only on workers of " + elsewhere + ": nothing runs them",
                            "live workers with a handler for it: " + elsewhere + "; none in '" + db + "'",
                            "enqueue the kind where its queue is routed (DocketRouter), or start a worker with its "
                                    + "handler on database '" + db + "'"));
                }
            });
        });
        if (found.isEmpty()) {
            found.add(new DoctorReport.Finding("handler_in_other_database", DoctorReport.Severity.OK, "kinds",
                    "no kind waits in one database for a handler that only another database's workers have", "", ""));
        }
        return found;
    }

    /** Starts one worker per database with that database's queues; see {@link RoutedWorkers}. */
    public RoutedWorkers.Builder worker() {
        return new RoutedWorkers.Builder(this);
    }

    /**
     * Declares a router's databases and routes. Nothing is read from the databases until the router
     * is used.
     */
    public static final class Builder {

        private final Map<String, Target> databases = new LinkedHashMap<>();
        private final Map<String, Set<String>> queueRoutes = new LinkedHashMap<>();
        private final List<Map.Entry<JobKind<?>, String>> kindRoutes = new ArrayList<>();
        private final List<JobKind<?>> declaredKinds = new ArrayList<>();
        private String defaultDatabase;

        private Builder() {
        }

        /**
         * Adds a database under {@code name} (matching {@link #DATABASE_NAME}); the first added is the
         * default unless {@link #defaultDatabase} names another.
         *
         * @throws IllegalArgumentException for a bad or repeated name, or a Docket added twice
         */
        public Builder database(String name, Docket docket) {
            Objects.requireNonNull(docket, "docket");
            if (name == null || !DATABASE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("database name must be 1 to 63 letters, digits, '_' or '-', was "
                        + TextRules.describe(name));
            }
            if (databases.containsKey(name)) {
                throw new IllegalArgumentException("database '" + name + "' is declared twice");
            }
            for (Map.Entry<String, Target> e : databases.entrySet()) {
                if (e.getValue().docket == docket) {
                    throw new IllegalArgumentException("the Docket of database '" + name + "' is already database '"
                            + e.getKey() + "'");
                }
            }
            databases.put(name, new Target(docket));
            return this;
        }

        /** The database that stays the default (the server's and the dashboard's); default: the first added. */
        public Builder defaultDatabase(String name) {
            this.defaultDatabase = Objects.requireNonNull(name, "defaultDatabase");
            return this;
        }

        /** Routes each kind's queue (its defaults' queue, else {@code default}) to {@code database}. */
        public Builder route(String database, JobKind<?>... kinds) {
            Objects.requireNonNull(database, "database");
            for (JobKind<?> kind : kinds) {
                kindRoutes.add(Map.entry(Objects.requireNonNull(kind, "kind"), database));
            }
            return this;
        }

        /** Routes {@code queue} to {@code database}. */
        public Builder routeQueue(String queue, String database) {
            JobOptionRules.checkQueue(queue);
            queueRoutes.computeIfAbsent(queue, q -> new LinkedHashSet<>()).add(Objects.requireNonNull(database, "database"));
            return this;
        }

        /**
         * Declares kinds without routing them: {@link #build()} refuses any whose queue no route
         * covers. Declare every kind the application enqueues through the router, so that a missing
         * route is found at startup rather than at the first enqueue.
         */
        public Builder kinds(JobKind<?>... kinds) {
            for (JobKind<?> kind : kinds) {
                declaredKinds.add(Objects.requireNonNull(kind, "kind"));
            }
            return this;
        }

        /**
         * The router.
         *
         * @throws IllegalArgumentException for no database, a route to a database not declared, a
         *                                  queue routed to two databases (the outbox queue to any), a
         *                                  kind routed nowhere or to two places, or a kind {@link
         *                                  JobKind#named by name} routed by its queue
         */
        public DocketRouter build() {
            if (databases.isEmpty()) {
                throw new IllegalArgumentException("a router needs at least one database");
            }
            if (defaultDatabase != null && !databases.containsKey(defaultDatabase)) {
                throw new IllegalArgumentException("default database '" + defaultDatabase + "' is not declared; "
                        + "databases: " + databases.keySet());
            }
            Map<String, Set<String>> routes = new LinkedHashMap<>();
            queueRoutes.forEach((q, dbs) -> routes.computeIfAbsent(q, x -> new LinkedHashSet<>()).addAll(dbs));
            Map<String, JobKind<?>> kinds = new LinkedHashMap<>();
            Map<String, String> queueOfKind = new LinkedHashMap<>();
            List<JobKind<?>> all = new ArrayList<>(declaredKinds);
            for (Map.Entry<JobKind<?>, String> e : kindRoutes) {
                JobKind<?> kind = e.getKey();
                if (kind.byName()) {
                    throw new IllegalArgumentException("kind '" + kind.name() + "' was made by JobKind.named and has "
                            + "no queue of its own: route its queue with routeQueue");
                }
                routes.computeIfAbsent(kind.resolve(JobOptions.defaults()).queue(), x -> new LinkedHashSet<>())
                        .add(e.getValue());
                all.add(kind);
            }
            Map<String, Placement> placements = new LinkedHashMap<>();
            routes.forEach((queue, dbs) -> {
                if (queue.equals(OUTBOX_QUEUE)) {
                    throw new IllegalArgumentException("queue '" + OUTBOX_QUEUE + "' is in every database and is not routed");
                }
                for (String db : dbs) {
                    if (!databases.containsKey(db)) {
                        throw new IllegalArgumentException("queue '" + queue + "' is routed to database '" + db
                                + "', which is not declared; databases: " + databases.keySet());
                    }
                }
                if (dbs.size() > 1) {
                    throw new IllegalArgumentException("queue '" + queue + "' is routed to two databases " + dbs
                            + ": a queue lives in exactly one");
                }
                placements.put(queue, new Placement(dbs.iterator().next(), null));
            });
            for (JobKind<?> kind : all) {
                String queue = kind.byName() ? null : kind.resolve(JobOptions.defaults()).queue();
                if (queue == null || !placements.containsKey(queue)) {
                    throw new IllegalArgumentException("kind '" + kind.name() + "' goes to queue '" + queue
                            + "', which is routed to no database");
                }
                String before = queueOfKind.putIfAbsent(kind.name(), queue);
                if (before != null && !placements.get(before).database().equals(placements.get(queue).database())) {
                    throw new IllegalArgumentException("kind '" + kind.name() + "' is declared twice, with queue '"
                            + before + "' in database '" + placements.get(before).database() + "' and queue '" + queue
                            + "' in database '" + placements.get(queue).database() + "'");
                }
                kinds.putIfAbsent(kind.name(), kind);
            }
            return new DocketRouter(this, placements, kinds);
        }
    }
}
