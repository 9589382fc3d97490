package dev.docket;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.internal.completer.Completer;
import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.heartbeat.Heartbeater;
import dev.docket.internal.leader.LeaderElector;
import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.maintenance.Maintainer;
import dev.docket.internal.notify.Notifier;
import dev.docket.internal.producer.HandlerDrain;
import dev.docket.internal.producer.Producer;
import dev.docket.internal.producer.QueueSettingsWatcher;
import dev.docket.internal.registry.WorkerRegistry;
import dev.docket.internal.service.Lifecycle;
import dev.docket.internal.service.PoolSize;
import dev.docket.internal.service.Service;
import dev.docket.internal.service.ServiceGroup;
import dev.docket.internal.service.StallWatch;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
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
 * <p>Connections: each claim, heartbeat, batch of outcomes, queue-settings read, election and
 * maintenance round borrows a pool connection briefly, and the listener holds one for the worker's
 * life (none from the pool with {@link Builder#listenerDataSource} or {@code listen(false)}). So
 * that none of them ever waits for another, a worker needs {@code queues + 6} pool connections:
 * one per queue, one each for outcomes, heartbeats and queue settings, two for maintenance (the
 * election and the maintainer) and one for the listener (two fewer with {@code maintenance(false)},
 * one fewer without a pooled listener), plus whatever its handlers use. With
 * fewer it works, its services taking turns, and it logs a warning at start. It refuses to start
 * where it could make no progress at all: when the pool's size is known and the listener would take
 * its last connection. A pool whose size is not known and that has no connection to give shows as
 * stalled services in {@link #health()} and in the log.
 */
public final class Worker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    private final Docket docket;
    private final WorkerConfig config;
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
    private final HandlerDrain handlerDrain;
    private final StallWatch stallWatch;
    private final WorkerRegistry registry;
    /** Started in this order and stopped in the reverse: see {@link #wiring()}. */
    private final ServiceGroup services;
    private boolean closed;

    private Worker(Builder b, WorkerConfig config) {
        this.docket = b.docket;
        this.config = config;
        String workerId = config.workerId();
        this.completer = new Completer(docket.store(), workerId, !docket.historyRetention().isZero(),
                config.completerBatchSize(), config.completerDrainTimeout());
        Map<String, HandlerBinding<?>> handlers = new HashMap<>(b.handlers);
        this.executor = new JobExecutor(handlers, docket::retryPolicy, docket.codec(), completer, docket.store(), inFlight,
                workerId);
        this.queueSettings = new QueueSettingsWatcher(docket.store(), config.queueSettingsInterval());
        b.queues.forEach((queue, concurrency) -> {
            Producer p = new Producer(queue, concurrency, Math.min(concurrency, config.maxClaimBatch()),
                    config.pollInterval(), config.lease(), workerId, docket.store(), executor, queueSettings);
            producers.add(p);
            wakers.put(queue, p::jobsAvailable);
        });
        this.heartbeater = new Heartbeater(docket.store(), inFlight, workerId, config.lease(), executor::leaseOf,
                config.heartbeatInterval());
        this.notifier = config.listen() ? new Notifier(listenerDataSource(), docket.schemaName().channel(), wakers,
                config.listenerLivenessInterval()) : null;
        if (config.maintenance()) {
            this.maintainer = new Maintainer(docket.store(), config.maintenanceInterval(), docket.historyRetention(),
                    docket.deadJobRetention(), new CronEnqueuer(docket.store(), docket.schedules()));
            this.elector = new LeaderElector(docket.store(), "maintainer", workerId, config.leaderLease(),
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
        this.handlerDrain = new HandlerDrain(producers, inFlight, completer, config.shutdownGrace(),
                config.interruptWait());
        // The maintainer's rounds may rightly be long (a vacuum): only services whose rounds are short are watched.
        List<Service> watched = new ArrayList<>(producers);
        watched.add(completer);
        watched.add(heartbeater);
        watched.add(queueSettings);
        if (notifier != null) {
            watched.add(notifier);
        }
        if (elector != null) {
            watched.add(elector);
        }
        this.stallWatch = new StallWatch("docket-stall-watch-" + workerId, watched, config.stallTimeout(),
                "a worker needs " + connectionsNeeded() + " pool connections (queues + 6, see Worker)");
        this.registry = new WorkerRegistry(docket.store(), WorkerRegistry.Identity.of(workerId, b.queues, handlers,
                connectionsNeeded(), config.listen()), this::isListening, stallWatch::stalled, config.heartbeatInterval());
        this.services = new ServiceGroup(wiring());
    }

    /**
     * The services in the order they start; they stop in the reverse order, which is the graceful
     * shutdown: stop claiming, stop listening and leading, let handlers finish within the grace (then
     * interrupt and release the rest), write every outcome, and stop the heartbeat last, so that no
     * lease lapses while its job is still being finished.
     */
    private List<Lifecycle> wiring() {
        List<Lifecycle> order = new ArrayList<>();
        order.add(heartbeater);
        order.add(registry);
        order.add(stallWatch);
        order.add(queueSettings);
        order.add(Lifecycle.onStop(executor::close));
        order.add(completer);
        order.add(handlerDrain);
        if (elector != null) {
            order.add(elector);
        }
        if (notifier != null) {
            order.add(notifier);
        }
        order.addAll(producers);
        return order;
    }

    private DataSource listenerDataSource() {
        return config.listenerDataSource() != null ? config.listenerDataSource() : docket.store().dataSource();
    }

    /** Pool connections this worker's services may hold at once; see the class's Javadoc. */
    private int connectionsNeeded() {
        return producers.size() + 3 + (config.maintenance() ? 2 : 0) + (listensOnThePool() ? 1 : 0);
    }

    private boolean listensOnThePool() {
        return config.listen() && config.listenerDataSource() == null;
    }

    private Worker start() {
        PoolSize.check(docket.store().dataSource(), connectionsNeeded(), listensOnThePool(), log);
        docket.requireSchema();
        try {
            queueSettings.runOnce();
            registry.runOnce();
        } catch (SQLException e) {
            throw new DocketException("docket: reading the queue settings failed: " + e.getMessage(), e);
        }
        services.start();
        docket.register(this);
        log.info("docket: worker {} started on queues {}", workerId(),
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
        return config.workerId();
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
        producers.forEach(p -> addFailures(failing, "producer:" + p.queue(), p));
        addFailures(failing, "completer", completer);
        addFailures(failing, "heartbeat", heartbeater);
        addFailures(failing, "queue-settings", queueSettings);
        addFailures(failing, "registry", registry);
        if (notifier != null) {
            addFailures(failing, "listener", notifier);
        }
        if (elector != null) {
            addFailures(failing, "leader-election", elector);
            addFailures(failing, "maintenance", maintainer);
        }
        List<String> stalled = stallWatch.stalled();
        boolean healthy = stalled.isEmpty()
                && failing.values().stream().allMatch(n -> n < WorkerHealth.FAILURE_THRESHOLD);
        return new WorkerHealth(healthy, workerId(), isLeader(), isListening(), inFlight.size(), failing, stalled);
    }

    private static void addFailures(Map<String, Integer> failing, String service, Service s) {
        int failures = s.consecutiveFailures();
        if (failures > 0) {
            failing.put(service, failures);
        }
    }

    /** Whether the listener connection is up (always false with notifications off). */
    public boolean isListening() {
        return notifier != null && notifier.isListening();
    }

    /** The backend pid of the listener connection, or -1: the seam through which tests terminate it. */
    int listenerBackendPid() {
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
        handlerDrain.shutdownBegins();
        services.stop();
        docket.unregister(this);
        log.info("docket: worker {} stopped", workerId());
    }

    /** Configures a {@link Worker}; every option has a documented default. */
    public static final class Builder {

        private final Docket docket;
        private final Map<String, Integer> queues = new LinkedHashMap<>();
        private final Map<String, HandlerBinding<?>> handlers = new HashMap<>();
        private final Map<String, Map<Integer, UnaryOperator<JsonNode>>> upcasters = new HashMap<>();
        /** Kinds whose handler was registered by name alone, whose upcasters may still be added. */
        private final Set<String> namedOnly = new HashSet<>();
        private String workerId;
        private Duration pollInterval;
        private Duration lease;
        private Duration heartbeatInterval;
        private Duration shutdownGrace;
        private Duration maintenanceInterval;
        private Duration leaderLease;
        private boolean listen = true;
        private DataSource listenerDataSource;
        private boolean maintenance = true;
        private int maxClaimBatch = WorkerConfig.DEFAULT_MAX_CLAIM_BATCH;

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
            this.lease = WorkerConfig.atLeast("lease", lease, Duration.ofSeconds(1));
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
         * How long the maintenance leader's lease lasts, default 10 s (at least 300 ms; renewed every
         * third of it): a leader that dies is replaced within this time; one that stops resigns at once.
         */
        public Builder leaderLease(Duration lease) {
            this.leaderLease = WorkerConfig.atLeast("leaderLease", lease, Duration.ofMillis(300));
            return this;
        }

        /** How often maintenance runs, default 1 s: the most a due scheduled job or retry waits. */
        public Builder maintenanceInterval(Duration interval) {
            this.maintenanceInterval = Docket.Builder.positive("maintenanceInterval", interval);
            return this;
        }

        /** The most jobs one claim statement takes, default 100, 1 to 10,000 (and never more than the queue's free slots). */
        public Builder maxClaimBatch(int max) {
            this.maxClaimBatch = WorkerConfig.between("maxClaimBatch", max, 1, 10_000);
            return this;
        }

        /** This worker's id in {@code locked_by}; default host/pid/random. Must be unique among live workers. */
        public Builder workerId(String workerId) {
            this.workerId = WorkerConfig.checkWorkerId(workerId);
            return this;
        }

        /**
         * Starts the worker. A worker with no queue runs only maintenance (it takes part in the leader
         * election): what a process that runs no jobs, such as an API server, uses.
         *
         * @throws IllegalStateException if it has queues but no handler, or neither queues nor maintenance,
         *                               or its pool is known to be too small to make progress (see {@link Worker})
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
            WorkerConfig config = new WorkerConfig(workerId, pollInterval, lease, heartbeatInterval, shutdownGrace,
                    maintenanceInterval, leaderLease, listen, listenerDataSource, maintenance, maxClaimBatch,
                    WorkerConfig.DEFAULT_COMPLETER_BATCH_SIZE, null, null, null, null, null);
            return new Worker(this, config).start();
        }
    }
}
