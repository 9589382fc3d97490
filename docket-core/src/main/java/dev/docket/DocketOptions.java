package dev.docket;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.internal.db.NetworkTimeout;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Every option of a {@link Docket}, with its default: what {@link Docket.Builder} sets. Each setter
 * checks its value and says what is wrong with it.
 */
abstract sealed class DocketOptions permits Docket.Builder {

    final DataSource dataSource;
    String schema = "docket";
    ObjectMapper objectMapper = PayloadCodec.defaultMapper();
    int maxPayloadBytes = 256 * 1024;
    RetryPolicy defaultRetryPolicy = RetryPolicy.defaults();
    final List<PeriodicJob> periodic = new ArrayList<>();
    final KindRegistry.Declarations kinds = new KindRegistry.Declarations();
    Duration historyRetention = Duration.ofDays(7);
    Duration deadJobRetention = Duration.ofDays(30);
    Duration migrationLockTimeout = Duration.ofSeconds(10);
    boolean notifyOnEnqueue = true;
    Duration notifyWindow = Duration.ofMillis(5);
    ExternalTransactions externalTransactions;
    MeterRegistry meterRegistry;
    int metricsKindLimit = Docket.DEFAULT_METRICS_KIND_LIMIT;
    Duration metricsInterval = Duration.ofSeconds(10);
    boolean databaseGauges = true;
    OpenTelemetry openTelemetry;
    Duration networkTimeout = Duration.ofSeconds(30);
    final Map<String, RateLimit> rateLimits = new LinkedHashMap<>();
    PayloadKeyProvider payloadKeys;

    DocketOptions(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    private Docket.Builder self() {
        return (Docket.Builder) this;
    }

    /** The schema for Docket's tables, default {@code docket}: a lower-case identifier of up to 63 characters. */
    public Docket.Builder schema(String schema) {
        new SchemaName(schema);
        this.schema = schema;
        return self();
    }

    /**
     * The Jackson mapper for payloads. Default: Java time support, ISO dates, unknown properties
     * ignored (so adding a field to a payload does not break older workers).
     */
    public Docket.Builder objectMapper(ObjectMapper objectMapper) {
        this.objectMapper = Objects.requireNonNull(objectMapper, "objectMapper");
        return self();
    }

    /** The largest payload accepted, in bytes of JSON; default 256 KiB; from 2 bytes to 64 MiB. */
    public Docket.Builder maxPayloadBytes(int maxPayloadBytes) {
        this.maxPayloadBytes = OptionChecks.between("maxPayloadBytes", maxPayloadBytes, 2, 64 * 1024 * 1024);
        return self();
    }

    /** The retry policy of kinds without their own; default {@link RetryPolicy#defaults()}. */
    public Docket.Builder defaultRetryPolicy(RetryPolicy policy) {
        this.defaultRetryPolicy = Objects.requireNonNull(policy, "policy");
        return self();
    }

    /**
     * The retry policy of the kind named {@code kind} (its max attempts apply at enqueue, its backoff in
     * workers): a shorthand for a kind declared with only a retry policy. Every other setting of a kind
     * (payload version, upcasters, defaults, lease, timeout) is declared on a {@link JobKind}.
     */
    public Docket.Builder retryPolicy(String kind, RetryPolicy policy) {
        kinds.retryPolicy(kind, policy);
        return self();
    }

    /**
     * Declares a kind for the string forms too: {@code enqueue("send_email", payload)}, periodic
     * jobs of that kind, and {@code handler("send_email", type, handler)} then use its payload
     * version, defaults, retry policy, lease, timeout and upcasters, as
     * {@code enqueue(SEND_EMAIL, payload)} and {@code handler(SEND_EMAIL, handler)} always do.
     * Optional: a {@link JobKind} works without it. A declared kind's settings belong to it alone:
     * {@link #retryPolicy(String, RetryPolicy)} for its name is refused.
     *
     * @throws IllegalArgumentException if a kind of that name is already declared
     */
    public Docket.Builder kind(JobKind<?> kind) {
        kinds.declare(kind);
        return self();
    }

    /**
     * Encrypts the jobs of the string kind {@code kind} at rest, as if it were declared with
     * {@link JobKind.Builder#encrypted()}: for an application (or {@code docket serve}) that enqueues the
     * kind by name without declaring its {@link JobKind}. A kind declared with {@link #kind} is encrypted by
     * its own declaration.
     *
     * @throws IllegalArgumentException for a name that is not a kind name
     */
    public Docket.Builder encryptedKind(String kind) {
        kinds.encrypted(kind);
        return self();
    }

    /**
     * Where the keys of payloads encrypted at rest come from ({@link JobKind.Builder#encrypted}): the current
     * key encrypts, any key the provider still has decrypts. Default: none; then this Docket refuses to
     * enqueue jobs of encrypted kinds, its workers fail encrypted jobs with an
     * {@link EncryptedPayloadException} (retried: another worker may have the key), and {@link Docket#job}
     * shows encrypted values as {@code null} with {@link JobInfo#payloadEncrypted()} true.
     * {@link PayloadKeyProvider#parse} reads keys given as configuration.
     */
    public Docket.Builder payloadKeys(PayloadKeyProvider provider) {
        this.payloadKeys = Objects.requireNonNull(provider, "provider");
        return self();
    }

    /**
     * Enqueues a job on a cron schedule, exactly once per slot across the cluster (see
     * {@link PeriodicJob}); the maintenance leader does it. Declare the same schedules on every node.
     */
    public Docket.Builder periodic(PeriodicJob job) {
        Objects.requireNonNull(job, "job");
        if (periodic.stream().anyMatch(p -> p.name().equals(job.name()))) {
            throw new IllegalArgumentException("a periodic job named '" + job.name() + "' is already declared");
        }
        periodic.add(job);
        return self();
    }

    /**
     * Declares a rate limit on a kind: at most {@code permits} jobs of {@code kind} start per
     * {@code period}, cluster-wide, in every window of that length (see {@link RateLimit} for the exact
     * guarantee and {@link #rateLimit(RateLimit)} for how declarations and run-time edits meet). Same as
     * {@code rateLimit(RateLimit.ofKind(kind, permits, period))}.
     *
     * @throws IllegalArgumentException if {@code kind} is not a kind name, {@code permits} is not between 1
     *                                  and {@value RateLimit#MAX_PERMITS}, {@code period} is not a whole
     *                                  number of milliseconds from 1 ms to 7 days, or a limit on the kind is
     *                                  already declared
     */
    public Docket.Builder rateLimit(String kind, int permits, Duration period) {
        return rateLimit(RateLimit.ofKind(kind, permits, period));
    }

    /**
     * Declares a rate limit on a queue: at most {@code permits} jobs of {@code queue}, whatever their kind,
     * start per {@code period}, cluster-wide. Same as {@code rateLimit(RateLimit.ofQueue(queue, permits, period))}.
     *
     * @throws IllegalArgumentException as {@link #rateLimit(String, int, Duration)}, for a queue name
     */
    public Docket.Builder queueRateLimit(String queue, int permits, Duration period) {
        return rateLimit(RateLimit.ofQueue(queue, permits, period));
    }

    /**
     * Declares a rate limit, of a kind or a queue, optionally with a budget per tenant
     * ({@link RateLimit#perTenantBudgets()}). Default: no limits.
     *
     * <p>Limits live in the database ({@code docket.rate_limits}), so that every node applies the same
     * and operators can change them at run time ({@link DocketAdmin#setRateLimit}, the REST API, the CLI,
     * the dashboard). A declaration is written when a worker of this Docket starts; it replaces the
     * stored limit unless that was edited at run time: an edit stays in force, over every node's
     * declaration, until it is removed ({@link DocketAdmin#removeRateLimit}); the next worker that starts
     * with a declaration then writes it again. Declare the same limits on every node.
     *
     * @throws IllegalArgumentException if a limit on the same kind or queue is already declared
     */
    public Docket.Builder rateLimit(RateLimit limit) {
        Objects.requireNonNull(limit, "limit");
        String key = limit.scope() + ":" + limit.name();
        if (rateLimits.putIfAbsent(key, limit) != null) {
            throw new IllegalArgumentException("a rate limit on " + limit.scope().name().toLowerCase(Locale.ROOT)
                    + " '" + limit.name() + "' is already declared");
        }
        return self();
    }

    /**
     * How long completed and cancelled jobs stay in the history table, default 7 days; dropped a
     * day partition at a time. {@link Duration#ZERO} deletes jobs on completion instead.
     */
    public Docket.Builder historyRetention(Duration retention) {
        this.historyRetention = OptionChecks.nonNegative("historyRetention", retention);
        return self();
    }

    /** How long dead jobs stay in the dead-letter table, default 30 days. */
    public Docket.Builder deadJobRetention(Duration retention) {
        this.deadJobRetention = OptionChecks.nonNegative("deadJobRetention", retention);
        return self();
    }

    /** {@code lock_timeout} for each migration once it holds the migration lock; default 10 s. */
    public Docket.Builder migrationLockTimeout(Duration timeout) {
        this.migrationLockTimeout = OptionChecks.positive("migrationLockTimeout", timeout);
        return self();
    }

    /**
     * Whether enqueues wake idle workers with {@code pg_notify}, default true; at most one
     * notification per queue per {@link #notifyWindow(Duration)} from this process.
     */
    public Docket.Builder notifyOnEnqueue(boolean notify) {
        this.notifyOnEnqueue = notify;
        return self();
    }

    /** The per-queue notification rate limit window, default 5 ms. */
    public Docket.Builder notifyWindow(Duration window) {
        this.notifyWindow = OptionChecks.positive("notifyWindow", window);
        return self();
    }

    /**
     * Makes the enqueue forms without a {@link java.sql.Connection} join the caller's transaction when
     * {@code transactions} reports one (see {@link ExternalTransactions}); default none: they
     * always commit on their own. The Spring Boot starter sets this for Spring-managed transactions.
     */
    public Docket.Builder externalTransactions(ExternalTransactions transactions) {
        this.externalTransactions = Objects.requireNonNull(transactions, "transactions");
        return self();
    }

    /**
     * Where Docket's metrics go (Micrometer, an optional dependency). Default: none, and then the
     * metrics cost nothing: no meter, no clock read, no allocation per job, no gauge query.
     *
     * <p>With a registry, this instance's workers count outcomes ({@code docket.jobs.completed},
     * {@code docket.job.attempts.failed}, {@code docket.jobs.dead}) and time pickup latency, run
     * duration and claims (histograms in seconds), and this instance reads live jobs, lag and the
     * jobs table's vacuum debt into gauges every {@link #metricsInterval(Duration)}, from {@link Docket.Builder#build()}
     * until {@link Docket#close()}. Labels are {@code queue} and {@code kind}, never anything from a
     * payload; kinds beyond {@link #metricsKindLimit(int)} are labelled {@code other}. The README's
     * "Metrics" section lists every meter. One Docket per registry: two would share its meters.
     *
     * <p>Calling the builder's other methods needs no Micrometer; listing its methods by reflection
     * does, since this one names {@code MeterRegistry} (and {@link #openTelemetry(OpenTelemetry)} its type).
     */
    public Docket.Builder meterRegistry(MeterRegistry registry) {
        this.meterRegistry = Objects.requireNonNull(registry, "registry");
        return self();
    }

    /**
     * How many kinds the metrics name, default {@value Docket#DEFAULT_METRICS_KIND_LIMIT}, from 1 to
     * 10,000: the first kinds this process sees keep their name in the {@code kind} label, and every
     * later one is reported as {@code other}, so kinds chosen by callers cannot grow the number of
     * series without bound. A kind literally named {@code other} shares that label.
     */
    public Docket.Builder metricsKindLimit(int limit) {
        this.metricsKindLimit = OptionChecks.between("metricsKindLimit", limit, 1, 10_000);
        return self();
    }

    /**
     * How often the gauges read from the database (live jobs, lag, vacuum debt) are refreshed,
     * default 10 s, from 100 ms to 1 hour; only with a {@link #meterRegistry(MeterRegistry)}. Each refresh is one
     * grouped count over the live jobs table and one read of its statistics.
     */
    public Docket.Builder metricsInterval(Duration interval) {
        OptionChecks.positive("metricsInterval", interval);
        if (interval.compareTo(Duration.ofMillis(100)) < 0 || interval.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("metricsInterval must be between 100 ms and 1 hour, was " + interval);
        }
        this.metricsInterval = interval;
        return self();
    }

    /**
     * Whether this Docket reads the gauges that come from the database (live jobs, lag, each queue's
     * backlog, the jobs table's vacuum debt) into its {@link #meterRegistry(MeterRegistry)}, default on.
     * Every process that reads them reports the same values and pays a grouped count over the live jobs
     * every {@link #metricsInterval(Duration)}: in a fleet, turn them off in the worker processes and
     * let the server ({@code docket serve}) or one process read them. The meters of this process's own
     * work (outcome counters, histograms, worker slots) are kept either way. {@code docket worker}
     * turns them off.
     */
    public Docket.Builder databaseGauges(boolean read) {
        this.databaseGauges = read;
        return self();
    }

    /**
     * Where Docket's spans go (the OpenTelemetry API, an optional dependency). Default: the global
     * {@code OpenTelemetry} once the application or the Java agent has set it, when the API is on
     * the class path; without the API nothing is traced and nothing changes. See the README's
     * "OpenTelemetry" section: the trace context is captured at enqueue into the job's metadata
     * ({@code traceparent}), and each attempt runs in a consumer span that is its child.
     */
    public Docket.Builder openTelemetry(OpenTelemetry openTelemetry) {
        this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
        return self();
    }

    /**
     * The longest Docket waits for the database to answer on a connection it borrowed (for enqueues,
     * claims, heartbeats, outcomes, maintenance, its LISTEN connection) before it gives the connection
     * up as broken, default 30 s; {@link Duration#ZERO} leaves the connections' own setting (such as
     * PgJDBC's {@code socketTimeout}). It is what turns a half-open connection (a cut network, a
     * database host that vanished without a reset) into an error that the services retry on a new
     * connection, instead of a wait without end. Keep it below the worker lease minus the heartbeat
     * interval so that a heartbeat stuck on such a connection is retried before its leases lapse, and
     * above the longest statement Docket runs on your data. Migrations are exempt: they may wait for
     * another node's lock.
     *
     * @throws IllegalArgumentException if negative, or positive but under 1 ms or over {@link Integer#MAX_VALUE} ms
     */
    public Docket.Builder networkTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "networkTimeout");
        new NetworkTimeout(timeout);
        this.networkTimeout = timeout;
        return self();
    }
}
