package dev.docket;

import dev.docket.internal.completer.Completer;
import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.executor.RecentOutcomes;
import dev.docket.internal.heartbeat.Heartbeater;
import dev.docket.internal.leader.LeaderElector;
import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.maintenance.Maintainer;
import dev.docket.internal.notify.Notifier;
import dev.docket.internal.producer.HandlerDrain;
import dev.docket.internal.producer.Producer;
import dev.docket.internal.producer.QueueSettingsWatcher;
import dev.docket.internal.registry.WorkerRegistry;
import dev.docket.internal.service.FailureLog;
import dev.docket.internal.service.Lifecycle;
import dev.docket.internal.service.PoolSize;
import dev.docket.internal.service.Service;
import dev.docket.internal.service.ServiceGroup;
import dev.docket.internal.service.StallWatch;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;

/**
 * A worker's services, made from its configuration and wired in the one order they start in (they
 * stop in the reverse): see {@link #wiring()}. Its health is read from them.
 */
final class WorkerServices {

    private final DocketWiring wiring;
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
    private final ServiceGroup services;

    WorkerServices(DocketWiring wiring, WorkerConfig config, Map<String, Integer> queues,
                   Map<String, HandlerBinding<?>> handlers) {
        this.wiring = wiring;
        this.config = config;
        String workerId = config.workerId();
        boolean keepHistory = !wiring.historyRetention().isZero();
        this.completer = new Completer(wiring.store(), workerId, keepHistory, config.asyncCommit(),
                WorkerConfig.COMPLETER_BATCH_SIZE, WorkerConfig.COMPLETER_DRAIN_TIMEOUT);
        this.executor = new JobExecutor(handlers, wiring.kinds()::retryPolicy, wiring.codec(), wiring.crypto(),
                completer, wiring.store(), inFlight, workerId, wiring.observer(), keepHistory);
        this.queueSettings = new QueueSettingsWatcher(wiring.store(), WorkerConfig.QUEUE_SETTINGS_INTERVAL, wiring.rateLimits());
        queues.forEach((queue, concurrency) -> {
            Producer p = new Producer(new Producer.Settings(queue, concurrency,
                    Math.min(concurrency + config.claimAhead(), config.maxClaimBatch()), config.claimAhead(),
                    config.pollInterval(), config.lease(), workerId), wiring.store(), executor, queueSettings,
                    wiring.observer());
            producers.add(p);
            wakers.put(queue, p::jobsAvailable);
        });
        this.heartbeater = new Heartbeater(wiring.store(), inFlight, workerId, config.lease(), executor::leaseOf,
                config.heartbeatInterval(), config.asyncCommit());
        this.notifier = config.listen() ? new Notifier(listenerDataSource(), wiring.schema().channel(), wakers,
                WorkerConfig.LISTENER_LIVENESS_INTERVAL, wiring.store().networkTimeout()) : null;
        if (config.maintenance()) {
            this.maintainer = new Maintainer(wiring.store(), config.maintenanceInterval(), wiring.historyRetention(),
                    wiring.deadJobRetention(), new CronEnqueuer(wiring.store(), wiring.schedules(), wiring::storedScheduleRow), wiring.observer());
            this.elector = new LeaderElector(wiring.store(), "maintainer", workerId, config.leaderLease(),
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
                WorkerConfig.INTERRUPT_WAIT);
        // The maintainer's rounds may rightly be long (a vacuum): only services whose rounds are short are watched.
        List<Service> watched = new ArrayList<>(producers);
        watched.addAll(List.of(completer, heartbeater, queueSettings));
        watched.addAll(present(notifier, elector));
        this.stallWatch = new StallWatch("docket-stall-watch-" + workerId, watched, WorkerConfig.STALL_TIMEOUT,
                "a worker needs " + connectionsNeeded() + " pool connections (queues + 6, see Worker)");
        this.registry = new WorkerRegistry(wiring.store(), WorkerRegistry.Identity.of(workerId, queues, handlers,
                connectionsNeeded(), config.listen()), this::isListening, stallWatch::stalled, this::activity,
                config.heartbeatInterval());
        this.services = new ServiceGroup(wiring());
    }

    /**
     * The services in the order they start; they stop in the reverse order, which is the graceful
     * shutdown: stop claiming, stop listening and leading, let handlers finish within the grace (then
     * interrupt and release the rest), write every outcome, and stop the heartbeat last, so that no
     * lease lapses while its job is still being finished.
     */
    private List<Lifecycle> wiring() {
        List<Lifecycle> order = new ArrayList<>(List.of(heartbeater, registry, stallWatch, queueSettings,
                Lifecycle.onStop(executor::close), completer, handlerDrain));
        order.addAll(present(elector, notifier));
        order.addAll(producers);
        return order;
    }

    /** The optional services that this worker has (no elector without maintenance, no notifier without listening). */
    private static List<Service> present(Service... optional) {
        return Arrays.stream(optional).filter(Objects::nonNull).toList();
    }

    private DataSource listenerDataSource() {
        return config.listenerDataSource() != null ? config.listenerDataSource() : wiring.store().dataSource();
    }

    /** Pool connections these services may hold at once; see {@link Worker}'s Javadoc. */
    private int connectionsNeeded() {
        return producers.size() + 3 + (config.maintenance() ? 2 : 0) + (listensOnThePool() ? 1 : 0);
    }

    private boolean listensOnThePool() {
        return config.listen() && config.listenerDataSource() == null;
    }

    /**
     * Checks the pool and the schema, reads the queue settings and registers the worker once (so that it
     * is registered when start returns), then starts every service in order.
     */
    void start(Logger log) {
        PoolSize.check(wiring.store().dataSource(), connectionsNeeded(), listensOnThePool(), log);
        wiring.schemaGuard().require();
        try {
            queueSettings.runOnce();
            registry.runOnce();
        } catch (SQLException e) {
            throw new DocketException("docket: reading the queue settings failed: " + e.getMessage(), e);
        }
        services.start();
    }

    /** The graceful shutdown: see {@link #wiring()}. */
    void stop() {
        handlerDrain.shutdownBegins();
        services.stop();
    }

    List<String> queues() {
        return producers.stream().map(Producer::queue).toList();
    }

    void jobsAvailable(String queue) {
        Runnable waker = wakers.get(queue);
        if (waker != null) {
            waker.run();
        }
    }

    int inFlight() {
        return inFlight.size();
    }

    /** What the registry row reports each round: handlers running now, attempts finished in the last minute. */
    private WorkerRegistry.Activity activity() {
        RecentOutcomes.LastMinute recent = executor.lastMinute();
        return new WorkerRegistry.Activity(producers.stream().mapToInt(Producer::running).sum(), recent.finished(),
                recent.failed());
    }

    boolean isLeader() {
        return elector != null && elector.isLeader();
    }

    boolean isListening() {
        return notifier != null && notifier.isListening();
    }

    int listenerBackendPid() {
        return notifier == null ? -1 : notifier.backendPid();
    }

    WorkerHealth health() {
        Map<String, Service> named = new LinkedHashMap<>();
        producers.forEach(p -> named.put("producer:" + p.queue(), p));
        named.put("completer", completer);
        named.put("heartbeat", heartbeater);
        named.put("queue-settings", queueSettings);
        named.put("registry", registry);
        if (notifier != null) {
            named.put("listener", notifier);
        }
        if (elector != null) {
            named.put("leader-election", elector);
            named.put("maintenance", maintainer);
        }
        Map<String, Integer> failing = new LinkedHashMap<>();
        Map<String, String> lastErrors = new LinkedHashMap<>();
        named.forEach((name, service) -> {
            FailureLog.Failure last = service.lastFailure();
            if (service.consecutiveFailures() > 0 && last != null) {
                failing.put(name, service.consecutiveFailures());
                long waiting = service.roundNanos();
                // A round still waiting must not pass the previous round's error off as its own.
                lastErrors.put(name, last.at() + " " + last.error() + (waiting > WorkerConfig.STALL_TIMEOUT.toNanos()
                        ? " (a previous round; the round in progress has been waiting "
                        + TimeUnit.NANOSECONDS.toSeconds(waiting) + " s)" : ""));
            }
        });
        List<String> stalled = stallWatch.stalled();
        boolean healthy = stalled.isEmpty()
                && failing.values().stream().allMatch(n -> n < WorkerHealth.FAILURE_THRESHOLD);
        return new WorkerHealth(healthy, config.workerId(), isLeader(), isListening(), inFlight(), failing, lastErrors,
                stalled);
    }
}
