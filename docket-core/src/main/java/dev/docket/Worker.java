package dev.docket;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.internal.completer.Completer;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.executor.RunningJob;
import dev.docket.internal.heartbeat.Heartbeater;
import dev.docket.internal.leader.LeaderElector;
import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.maintenance.Maintainer;
import dev.docket.internal.notify.Notifier;
import dev.docket.internal.producer.Producer;
import dev.docket.internal.producer.QueueSettingsWatcher;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs jobs in this JVM: one producer per queue claims up to the queue's concurrency, handlers run
 * on virtual threads, outcomes are written in batches, and a heartbeat keeps the leases of running
 * jobs. Start one with {@link Docket#worker()}.
 *
 * <p>{@link #close()} shuts down gracefully: it stops claiming, lets running handlers finish within
 * the grace period, interrupts the rest and gives their jobs back to the queue at once (not after
 * their lease), writes every outcome, and stops the heartbeat last.
 *
 * <p>Connections: each claim, heartbeat, batch of outcomes and maintenance round borrows a pool
 * connection briefly; the listener holds one for the worker's life (see
 * {@link Builder#listenerDataSource}). A pool of {@code queues + 4} connections serves a worker;
 * handlers that use the database need their own on top.
 */
public final class Worker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    private final Docket docket;
    private final String workerId;
    private final Duration shutdownGrace;
    private final InFlight inFlight = new InFlight();
    private final Completer completer;
    private final JobExecutor executor;
    private final QueueSettingsWatcher queueSettings;
    private final Heartbeater heartbeater;
    private final List<Producer> producers = new ArrayList<>();
    private final Map<String, Runnable> wakers = new HashMap<>();
    private final Notifier notifier;
    private final LeaderElector elector;
    private final Maintainer maintainer;
    private boolean closed;

    private Worker(Builder b) {
        this.docket = b.docket;
        this.workerId = b.workerId;
        this.shutdownGrace = b.shutdownGrace;
        this.completer = new Completer(docket.store(), workerId, !docket.historyRetention().isZero(), 1000);
        Map<String, HandlerBinding<?>> handlers = new HashMap<>(b.handlers);
        this.executor = new JobExecutor(handlers, docket::retryPolicy, docket.codec(), completer, docket.store(), inFlight,
                workerId);
        this.queueSettings = new QueueSettingsWatcher(docket.store(), Duration.ofSeconds(1));
        b.queues.forEach((queue, concurrency) -> {
            Producer p = new Producer(queue, concurrency, Math.min(concurrency, b.maxClaimBatch), b.pollInterval,
                    b.lease, workerId, docket.store(), executor, queueSettings);
            producers.add(p);
            wakers.put(queue, p::jobsAvailable);
        });
        this.heartbeater = new Heartbeater(docket.store(), inFlight, workerId, b.lease, executor::leaseOf,
                b.heartbeatInterval);
        this.notifier = b.listen ? new Notifier(b.listenerDataSource != null ? b.listenerDataSource
                : docket.store().dataSource(), docket.schemaName().channel(), wakers, Duration.ofSeconds(10)) : null;
        if (b.maintenance) {
            this.maintainer = new Maintainer(docket.store(), b.maintenanceInterval, docket.historyRetention(),
                    docket.deadJobRetention(), new CronEnqueuer(docket.store(), docket.schedules()));
            this.elector = new LeaderElector(docket.store(), "maintainer", workerId, b.leaderLease,
                    new LeaderElector.Listener() {
                        @Override
                        public void elected(long term) {
                            maintainer.start();
                        }

                        @Override
                        public void deposed() {
                            maintainer.stop();
                        }
                    });
        } else {
            this.elector = null;
            this.maintainer = null;
        }
    }

    private Worker start() {
        docket.requireSchema();
        try {
            queueSettings.runOnce();
        } catch (java.sql.SQLException e) {
            throw new DocketException("docket: reading the queue settings failed: " + e.getMessage(), e);
        }
        queueSettings.start();
        completer.start();
        heartbeater.start();
        if (elector != null) {
            elector.start();
        }
        if (notifier != null) {
            notifier.start();
        }
        producers.forEach(Producer::start);
        docket.register(this);
        log.info("docket: worker {} started on queues {}", workerId,
                producers.stream().map(Producer::queue).toList());
        return this;
    }

    /** Jobs committed on {@code queue} by an enqueue in this process: claim now, without waiting for the notification. */
    void jobsAvailable(String queue) {
        Runnable waker = wakers.get(queue);
        if (waker != null) {
            waker.run();
        }
    }

    /** This worker's id, as recorded in {@code locked_by} and in error entries. */
    public String workerId() {
        return workerId;
    }

    /** Jobs claimed by this worker whose outcome is not written yet. */
    public int inFlight() {
        return inFlight.size();
    }

    /** Whether this worker is the cluster's maintenance leader now. */
    public boolean isLeader() {
        return elector != null && elector.isLeader();
    }

    /** What each of this worker's services is doing; see {@link WorkerHealth}. */
    public WorkerHealth health() {
        Map<String, Integer> failing = new LinkedHashMap<>();
        producers.forEach(p -> addFailures(failing, "producer:" + p.queue(), p.consecutiveFailures()));
        addFailures(failing, "completer", completer.consecutiveFailures());
        addFailures(failing, "heartbeat", heartbeater.consecutiveFailures());
        addFailures(failing, "queue-settings", queueSettings.consecutiveFailures());
        if (notifier != null) {
            addFailures(failing, "listener", notifier.consecutiveFailures());
        }
        if (elector != null) {
            addFailures(failing, "leader-election", elector.consecutiveFailures());
            addFailures(failing, "maintenance", maintainer.consecutiveFailures());
        }
        boolean healthy = failing.values().stream().allMatch(n -> n < WorkerHealth.FAILURE_THRESHOLD);
        return new WorkerHealth(healthy, workerId, isLeader(), isListening(), inFlight.size(), failing);
    }

    private static void addFailures(Map<String, Integer> failing, String service, int failures) {
        if (failures > 0) {
            failing.put(service, failures);
        }
    }

    /** Whether the listener connection is up (always false with notifications off). */
    public boolean isListening() {
        return notifier != null && notifier.isListening();
    }

    /** The backend pid of the listener connection, or -1. Useful to test reconnects. */
    public int listenerBackendPid() {
        return notifier == null ? -1 : notifier.backendPid();
    }

    /** Graceful shutdown, as described on the class. Safe to call twice. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        long deadline = System.nanoTime() + shutdownGrace.toNanos();
        producers.forEach(Producer::stop);
        if (notifier != null) {
            notifier.stop();
        }
        if (elector != null) {
            elector.stop();
        }
        try {
            boolean idle = awaitHandlers(deadline);
            if (!idle) {
                releaseUnfinished();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            releaseUnfinished();
        }
        completer.stop(Duration.ofSeconds(10));
        executor.close();
        queueSettings.stop();
        heartbeater.stop();
        docket.unregister(this);
        log.info("docket: worker {} stopped", workerId);
    }

    private boolean awaitHandlers(long deadline) throws InterruptedException {
        for (Producer p : producers) {
            if (!p.awaitIdle(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Interrupts the handlers still running and gives their jobs back to the queue. A handler that
     * ignores the interrupt for a second more is abandoned: its job is released anyway and whatever
     * it reports later is fenced out.
     */
    private void releaseUnfinished() {
        List<RunningJob> running = inFlight.all().stream().filter(RunningJob::isHandlerRunning).toList();
        running.forEach(RunningJob::release);
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        try {
            awaitHandlers(deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (RunningJob job : running) {
            if (job.isHandlerRunning()) {
                log.warn("docket: job {} ({}) ignored the interrupt; releasing it anyway", job.fence().id(), job.job().kind());
                job.markLost();
                completer.submit(new Outcome.Released(job.fence(), false), written -> inFlight.remove(job));
            }
        }
    }

    /** Configures a {@link Worker}; every option has a documented default. */
    public static final class Builder {
        private static final Pattern WORKER_ID = Pattern.compile("[A-Za-z0-9_.:@/-]{1,128}");

        private final Docket docket;
        private final Map<String, Integer> queues = new LinkedHashMap<>();
        private final Map<String, HandlerBinding<?>> handlers = new HashMap<>();
        private final Map<String, Map<Integer, UnaryOperator<JsonNode>>> upcasters = new HashMap<>();
        /** Kinds whose handler was registered by name alone, whose upcasters may still be added. */
        private final Set<String> namedOnly = new HashSet<>();
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration lease = Duration.ofSeconds(30);
        private Duration heartbeatInterval;
        private Duration shutdownGrace = Duration.ofSeconds(10);
        private Duration maintenanceInterval = Duration.ofSeconds(1);
        private Duration leaderLease = Duration.ofSeconds(10);
        private boolean listen = true;
        private DataSource listenerDataSource;
        private boolean maintenance = true;
        private int maxClaimBatch = 100;
        private String workerId = defaultWorkerId();

        Builder(Docket docket) {
            this.docket = docket;
        }

        /**
         * Serves {@code name} with up to {@code concurrency} jobs at once (1 to 10,000). Each queue
         * has its own producer and slots, so a slow queue never starves another.
         */
        public Builder queue(String name, int concurrency) {
            JobOptions.builder().queue(name);
            if (concurrency < 1 || concurrency > 10_000) {
                throw new IllegalArgumentException("concurrency of queue " + name + " must be between 1 and 10000, was "
                        + concurrency);
            }
            queues.put(name, concurrency);
            return this;
        }

        /**
         * Runs jobs of {@code kind} with {@code handler}: the kind's payload type and version, upcasters,
         * lease, timeout, wait for newer payload versions, and retry policy (its own, else the Docket's
         * default) all come from the kind.
         *
         * @throws IllegalArgumentException if a handler for the kind's name is registered, or the Docket
         *                                  declares another kind of that name ({@link Docket.Builder#kind})
         */
        public <T> Builder handler(JobKind<T> kind, JobHandler<T> handler) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(handler, "handler");
            JobKind<?> declared = docket.declaredKind(kind.name());
            if (declared != null && declared != kind) {
                throw new IllegalArgumentException("the Docket declares another kind named '" + kind.name()
                        + "'; register the handler with that JobKind");
            }
            RetryPolicy retry = kind.retryPolicy() != null ? kind.retryPolicy() : docket.defaultRetryPolicy();
            return bind(kind, handler, retry);
        }

        /**
         * Runs jobs of {@code kind} with {@code handler}, reading payloads as {@code payloadType}
         * (a record or class Jackson can map, or {@code JsonNode}). Its retry policy is the kind's
         * on the {@link Docket}; a kind declared there ({@link Docket.Builder#kind}) brings all its settings.
         */
        public <T> Builder handler(String kind, Class<T> payloadType, JobHandler<T> handler) {
            return handler(kind, payloadType, handler, HandlerOptions.defaults());
        }

        /**
         * Like {@link #handler(String, Class, JobHandler)}, with a per-kind lease, timeout and payload
         * version. A kind declared on the Docket has those already: only {@link HandlerOptions#defaults()} is
         * accepted for it.
         */
        public <T> Builder handler(String kind, Class<T> payloadType, JobHandler<T> handler, HandlerOptions options) {
            Docket.checkKind(kind);
            Objects.requireNonNull(payloadType, "payloadType");
            Objects.requireNonNull(handler, "handler");
            Objects.requireNonNull(options, "options");
            JobKind<?> declared = docket.declaredKind(kind);
            JobKind<T> settings;
            if (declared != null) {
                if (!options.equals(HandlerOptions.defaults())) {
                    throw new IllegalArgumentException("kind '" + kind + "' is declared on the Docket: set its lease, "
                            + "timeout and payload version on its JobKind");
                }
                settings = declared.withPayloadType(payloadType);
            } else {
                JobKind.Builder<T> b = JobKind.of(kind, payloadType).payloadVersion(options.payloadVersion())
                        .newerVersionWait(options.newerVersionWait());
                if (options.lease() != null) {
                    b.lease(options.lease());
                }
                if (options.timeout() != null) {
                    b.timeout(options.timeout());
                }
                settings = b.build();
                for (Map.Entry<Integer, UnaryOperator<JsonNode>> step : upcasters.getOrDefault(kind, Map.of()).entrySet()) {
                    settings = settings.withUpcaster(step.getKey(), step.getValue());
                }
            }
            bind(settings, handler, docket.retryPolicy(kind));
            if (declared == null) {
                namedOnly.add(kind);
            }
            return this;
        }

        private <T> Builder bind(JobKind<T> kind, JobHandler<T> handler, RetryPolicy retry) {
            if (handlers.containsKey(kind.name())) {
                throw new IllegalArgumentException("a handler for kind '" + kind.name() + "' is already registered");
            }
            handlers.put(kind.name(), new HandlerBinding<>(kind, handler, retry));
            return this;
        }

        /**
         * Registers how payloads of the name-only {@code kind} at version {@code fromVersion} become
         * version {@code fromVersion + 1} (a JSON tree to a JSON tree). Jobs enqueued with an older
         * version are upcast step by step to the version the handler reads before they are mapped.
         * Before or after the kind's handler. A {@link JobKind} declares its upcasters itself.
         *
         * @throws IllegalArgumentException if the kind is a {@link JobKind} (registered with one, or declared on
         *                                  the Docket), or already has an upcaster from that version
         */
        public Builder upcaster(String kind, int fromVersion, UnaryOperator<JsonNode> upcaster) {
            Docket.checkKind(kind);
            Objects.requireNonNull(upcaster, "upcaster");
            if (fromVersion < 1) {
                throw new IllegalArgumentException("fromVersion must be >= 1, was " + fromVersion);
            }
            if (docket.declaredKind(kind) != null) {
                throw new IllegalArgumentException("kind '" + kind + "' is declared on the Docket: declare its upcasters "
                        + "on its JobKind");
            }
            HandlerBinding<?> bound = handlers.get(kind);
            if (bound != null && !namedOnly.contains(kind)) {
                throw new IllegalArgumentException("kind '" + kind + "' is registered with a JobKind: declare its "
                        + "upcasters on the JobKind");
            }
            if (upcasters.computeIfAbsent(kind, k -> new HashMap<>()).putIfAbsent(fromVersion, upcaster) != null) {
                throw new IllegalArgumentException("kind '" + kind + "' already has an upcaster from version " + fromVersion);
            }
            if (bound != null) {
                handlers.put(kind, withUpcaster(bound, fromVersion, upcaster));
            }
            return this;
        }

        private static <T> HandlerBinding<T> withUpcaster(HandlerBinding<T> b, int fromVersion,
                                                          UnaryOperator<JsonNode> upcaster) {
            return new HandlerBinding<>(b.kind().withUpcaster(fromVersion, upcaster), b.handler(), b.retryPolicy());
        }

        /** How often an idle producer looks for jobs without being notified, default 1 s (jittered ±20%). */
        public Builder pollInterval(Duration interval) {
            this.pollInterval = Docket.Builder.positive("pollInterval", interval);
            return this;
        }

        /** Whether to LISTEN for enqueue notifications (fast pickup), default true; polling works either way. */
        public Builder listen(boolean listen) {
            this.listen = listen;
            return this;
        }

        /**
         * Where the one long-lived LISTEN connection comes from; default: the Docket's data source, where
         * it then holds one pool connection for the worker's life. An unpooled data source (such as
         * PgJDBC's {@code PGSimpleDataSource}) keeps it out of the pool; it must reach the same database
         * directly, not through a transaction-pooling proxy, which cannot carry LISTEN.
         */
        public Builder listenerDataSource(DataSource dataSource) {
            this.listenerDataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /**
         * How long a claim holds a job without a heartbeat, default 30 s (at least 1 s). A worker that
         * dies loses its jobs to the rescuer this long after its last heartbeat.
         */
        public Builder lease(Duration lease) {
            Docket.Builder.positive("lease", lease);
            if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("lease must be at least 1s, was " + lease);
            }
            this.lease = lease;
            return this;
        }

        /** How often leases are extended, default a third of the lease; must be shorter than the lease. */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = Docket.Builder.positive("heartbeatInterval", interval);
            return this;
        }

        /** How long {@link Worker#close()} lets running handlers finish before interrupting them, default 10 s. */
        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = Docket.Builder.nonNegative("shutdownGrace", grace);
            return this;
        }

        /**
         * Whether this worker takes part in the election of the cluster's maintenance leader, default
         * true. The one leader makes due scheduled jobs ready, rescues jobs whose lease expired, and
         * applies retention; at least one node must have this on.
         */
        public Builder maintenance(boolean maintenance) {
            this.maintenance = maintenance;
            return this;
        }

        /**
         * How long the maintenance leader's lease lasts, default 10 s (renewed every third of it):
         * a leader that dies is replaced within this time; one that stops resigns at once.
         */
        public Builder leaderLease(Duration lease) {
            Docket.Builder.positive("leaderLease", lease);
            if (lease.compareTo(Duration.ofMillis(300)) < 0) {
                throw new IllegalArgumentException("leaderLease must be at least 300ms, was " + lease);
            }
            this.leaderLease = lease;
            return this;
        }

        /** How often maintenance runs, default 1 s: the most a due scheduled job or retry waits. */
        public Builder maintenanceInterval(Duration interval) {
            this.maintenanceInterval = Docket.Builder.positive("maintenanceInterval", interval);
            return this;
        }

        /** The most jobs one claim statement takes, default 100 (and never more than the queue's free slots). */
        public Builder maxClaimBatch(int max) {
            if (max < 1 || max > 10_000) {
                throw new IllegalArgumentException("maxClaimBatch must be between 1 and 10000, was " + max);
            }
            this.maxClaimBatch = max;
            return this;
        }

        /** This worker's id in {@code locked_by}; default host/pid/random. Must be unique among live workers. */
        public Builder workerId(String workerId) {
            if (workerId == null || !WORKER_ID.matcher(workerId).matches()) {
                throw new IllegalArgumentException("workerId must be 1 to 128 characters of A-Z a-z 0-9 _ . : @ / -, was "
                        + JobOptions.describe(workerId));
            }
            this.workerId = workerId;
            return this;
        }

        /**
         * Starts the worker. A worker with no queue runs only maintenance (it takes part in the leader
         * election): what a process that runs no jobs, such as an API server, uses.
         *
         * @throws IllegalStateException if it has queues but no handler, or neither queues nor maintenance
         * @throws DocketException       if the schema is missing or at another version (the message says what to run)
         */
        public Worker start() {
            if (queues.isEmpty() && !maintenance) {
                throw new IllegalStateException("a worker needs at least one queue (call .queue(name, concurrency)) "
                        + "or maintenance");
            }
            if (!queues.isEmpty() && handlers.isEmpty()) {
                throw new IllegalStateException("a worker needs at least one handler: call .handler(kind, type, handler)");
            }
            if (heartbeatInterval == null) {
                heartbeatInterval = lease.dividedBy(3);
            } else if (heartbeatInterval.compareTo(lease) >= 0) {
                throw new IllegalArgumentException("heartbeatInterval (" + heartbeatInterval
                        + ") must be shorter than the lease (" + lease + ")");
            }
            return new Worker(this).start();
        }

        private static String defaultWorkerId() {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "host";
            }
            host = host.replaceAll("[^A-Za-z0-9_.-]", "_");
            if (host.length() > 64) {
                host = host.substring(0, 64);
            }
            long pid = ManagementFactory.getRuntimeMXBean().getPid();
            return host + "/" + pid + "/" + UUID.randomUUID().toString().substring(0, 8);
        }
    }
}
