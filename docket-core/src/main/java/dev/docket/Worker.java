package dev.docket;

import dev.docket.internal.rules.JobOptionRules;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * one fewer without a pooled listener), plus whatever its handlers use: a {@link TransactionalJobHandler}
 * holds one connection per running job of its kind. With
 * fewer it works, its services taking turns, and it logs a warning at start. It refuses to start
 * where it could make no progress at all: when the pool's size is known and the listener would take
 * its last connection. A pool whose size is not known and that has no connection to give shows as
 * stalled services in {@link #health()} and in the log.
 */
public final class Worker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Worker.class);

    private final Docket docket;
    private final WorkerConfig config;
    private final WorkerServices services;
    private boolean closed;

    private Worker(Builder b, WorkerConfig config) {
        this.docket = b.docket;
        this.config = config;
        this.services = new WorkerServices(docket.wiring(), config, b.queues, b.handlers.bindings());
    }

    private Worker start() {
        services.start(log);
        docket.register(this);
        log.info("docket: worker {} started on queues {}", workerId(), services.queues());
        return this;
    }

    /** Jobs committed on {@code queue} by an enqueue in this process: claim now, without waiting for the notification. */
    void jobsAvailable(String queue) {
        services.jobsAvailable(queue);
    }

    /** This worker's id, as recorded in {@code locked_by} and in error entries. */
    public String workerId() {
        return config.workerId();
    }

    /** Jobs claimed by this worker whose outcome is not written yet. */
    public int inFlight() {
        return services.inFlight();
    }

    /** Whether this worker is the cluster's maintenance leader now. */
    public boolean isLeader() {
        return services.isLeader();
    }

    /** What each of this worker's services is doing; see {@link WorkerHealth}. */
    public WorkerHealth health() {
        return services.health();
    }

    /** Whether the listener connection is up (always false with notifications off). */
    public boolean isListening() {
        return services.isListening();
    }

    /** The backend pid of the listener connection, or -1: the seam through which tests terminate it. */
    int listenerBackendPid() {
        return services.listenerBackendPid();
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
        services.stop();
        docket.unregister(this);
        log.info("docket: worker {} stopped", workerId());
    }

    /** Configures a {@link Worker}; every option has a documented default. */
    public static final class Builder {

        private final Docket docket;
        private final Map<String, Integer> queues = new LinkedHashMap<>();
        private final Handlers handlers;
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
        private int claimAhead = WorkerConfig.DEFAULT_CLAIM_AHEAD;
        private boolean asyncCommit;

        Builder(Docket docket) {
            this.docket = docket;
            this.handlers = new Handlers(docket.wiring().kinds());
        }

        /**
         * Serves {@code name} with up to {@code concurrency} jobs at once (1 to 10,000). Each queue
         * has its own producer and slots, so a slow queue never starves another.
         */
        public Builder queue(String name, int concurrency) {
            JobOptionRules.checkQueue(name);
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
            handlers.add(kind, handler, null);
            return this;
        }

        /**
         * Runs jobs of the kind named {@code kind} with {@code handler}, reading payloads as
         * {@code payloadType} (a record or class Jackson can map, or {@code JsonNode}). A kind declared on
         * the {@link Docket} ({@link Docket.Builder#kind}) brings all its settings; any other runs with the
         * defaults of {@link JobKind} and the Docket's retry policy for its name. A kind's own lease,
         * timeout, payload version or upcasters: declare a {@link JobKind} and use {@link #handler(JobKind,
         * JobHandler)}.
         */
        public <T> Builder handler(String kind, Class<T> payloadType, JobHandler<T> handler) {
            handlers.add(kind, payloadType, handler, null);
            return this;
        }

        /**
         * Runs jobs of {@code kind} with a {@link TransactionalJobHandler}: its writes on the transaction it is
         * given and the job's completion commit together, or not at all (see there for the exact guarantee).
         * Settings come from the kind, as for {@link #handler(JobKind, JobHandler)}. Each running job of the
         * kind holds one more pool connection for its whole run.
         *
         * @throws IllegalArgumentException if a handler for the kind's name is registered, or the Docket
         *                                  declares another kind of that name ({@link Docket.Builder#kind})
         */
        public <T> Builder transactionalHandler(JobKind<T> kind, TransactionalJobHandler<T> handler) {
            handlers.add(kind, null, handler);
            return this;
        }

        /**
         * Like {@link #handler(String, Class, JobHandler)}, for a {@link TransactionalJobHandler}: its writes on
         * the transaction it is given and the job's completion commit together, or not at all.
         */
        public <T> Builder transactionalHandler(String kind, Class<T> payloadType, TransactionalJobHandler<T> handler) {
            handlers.add(kind, payloadType, null, handler);
            return this;
        }

        /** How often an idle producer looks for jobs without being notified, default 1 s (jittered ±20%). */
        public Builder pollInterval(Duration interval) {
            this.pollInterval = OptionChecks.positive("pollInterval", interval);
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
            this.lease = OptionChecks.atLeast("lease", lease, Duration.ofSeconds(1));
            return this;
        }

        /** How often leases are extended, default a third of the lease; must be shorter than the lease. */
        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = OptionChecks.positive("heartbeatInterval", interval);
            return this;
        }

        /** How long {@link Worker#close()} lets running handlers finish before interrupting them, default 10 s. */
        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = OptionChecks.nonNegative("shutdownGrace", grace);
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
            this.leaderLease = OptionChecks.atLeast("leaderLease", lease, Duration.ofMillis(300));
            return this;
        }

        /** How often maintenance runs, default 1 s: the most a due scheduled job or retry waits. */
        public Builder maintenanceInterval(Duration interval) {
            this.maintenanceInterval = OptionChecks.positive("maintenanceInterval", interval);
            return this;
        }

        /** The most jobs one claim statement takes, default 1,000, 1 to 10,000 (never more than the free slots and {@link #claimAhead}). */
        public Builder maxClaimBatch(int max) {
            this.maxClaimBatch = OptionChecks.between("maxClaimBatch", max, 1, 10_000);
            return this;
        }

        /**
         * The most jobs per queue this worker claims ahead of its free slots, default 1,000, 0 (off) to
         * 10,000. Jobs claimed ahead start the moment a slot frees, without a round trip to the
         * database, which is what lets short jobs run at the rate of the claim batch rather than of the
         * slots. It never holds more than its slots start within 50 ms at the handlers' measured running
         * time (so jobs that run for seconds are never claimed ahead and no worker hoards a queue), nor
         * any on a capped queue. Held jobs are claimed in every sense (attempt counted, lease extended,
         * outcome fenced); a graceful shutdown gives them back at once with their attempt not counted.
         */
        public Builder claimAhead(int max) {
            this.claimAhead = OptionChecks.between("claimAhead", max, 0, 10_000);
            return this;
        }

        /**
         * Whether this worker's outcomes and lease extensions commit without waiting for their WAL flush
         * ({@code synchronous_commit = off} for their transactions only), default false. Claims always
         * commit this way; enqueues never do. On: each batch of outcomes saves a disk flush, which is
         * most of its time on a disk that really flushes. The cost, only when PostgreSQL itself crashes
         * (not when a worker does, and not at a clean restart): the outcomes of the last moments before
         * the crash (up to three times {@code wal_writer_delay}, 600 ms by default) are lost, so those
         * jobs run again, as if their worker had died: at once if their claim was lost too (with the
         * same attempt number), else after their lease (as the next attempt). No job is lost and none
         * completes without having run.
         */
        public Builder asyncCommit(boolean asyncCommit) {
            this.asyncCommit = asyncCommit;
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
            return new Worker(this, config()).start();
        }

        WorkerConfig config() {
            return new WorkerConfig(workerId, pollInterval, lease, heartbeatInterval, shutdownGrace,
                    maintenanceInterval, leaderLease, listen, listenerDataSource, maintenance, maxClaimBatch, claimAhead, asyncCommit);
        }

        /**
         * Runs every ready job of this builder's queues now, one at a time on the calling thread, with
         * its handlers, and returns what became of each in the order they ran; starts nothing. For
         * tests that enqueue, run and assert deterministically. Jobs take the path a started worker's
         * take (the same claim counting the attempt, the same handler rules, the same fenced outcome
         * writes); a handler that throws schedules a retry after its backoff, which this call does not
         * run. Ready jobs the handlers enqueue on these queues run too. Concurrency and caps do not
         * apply; paused queues are skipped. No heartbeat extends the lease ({@link #lease}, default
         * 30 s) while a handler runs.
         *
         * @throws IllegalStateException if the builder has no queue or no handler, or after 10,000 runs with
         *                               jobs still ready (the next one is given back untouched)
         * @throws DocketException       if the schema is missing or at another version, or the database fails
         */
        public List<JobRun> runReadyJobs() {
            return CallerThreadJobs.run(docket.wiring(), config(), queues, handlers, null);
        }

        /**
         * Makes the scheduled jobs of this builder's queues that fall due within {@code horizon} ready
         * now (future jobs, retries waiting out their backoff, snoozed jobs), then runs every ready job
         * as {@link #runReadyJobs()} does. {@link Duration#ZERO} takes only those due already, which
         * the maintenance leader would make ready within its interval. Retries scheduled by this call's
         * runs are not made due again.
         *
         * @throws IllegalArgumentException if {@code horizon} is negative
         */
        public List<JobRun> runJobsDueWithin(Duration horizon) {
            return CallerThreadJobs.run(docket.wiring(), config(), queues, handlers,
                    OptionChecks.nonNegative("horizon", horizon));
        }
    }
}
