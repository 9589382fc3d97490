package dev.docket.internal.registry;

import dev.docket.internal.db.Database;
import dev.docket.internal.db.WorkerQueries.Registration;
import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.PeriodicService;
import dev.docket.internal.service.PoolSize;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this worker's row in the {@code workers} table: written at start and every heartbeat interval
 * (with what may change: whether the listener is up, which services are stalled, its handlers running
 * now and the attempts it finished in the last minute), deleted when the
 * worker stops gracefully. Doctor, "why is this job not running?" and {@code strictKinds} read the rows;
 * none of them guesses liveness from jobs. One short statement per round, on no job's path.
 */
public final class WorkerRegistry extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(WorkerRegistry.class);

    /** What a worker is: fixed at start. */
    public record Identity(String workerId, Map<String, Integer> queues, Map<String, Integer> kinds,
                           int connectionsNeeded, boolean listen) {

        /** A worker's queues (with concurrency) and its handlers' kinds, each with the payload version it reads. */
        public static Identity of(String workerId, Map<String, Integer> queues, Map<String, HandlerBinding<?>> handlers,
                                  int connectionsNeeded, boolean listen) {
            Map<String, Integer> kinds = new TreeMap<>();
            handlers.forEach((kind, binding) -> kinds.put(kind, binding.kind().payloadVersion()));
            return new Identity(workerId, Map.copyOf(queues), Map.copyOf(kinds), connectionsNeeded, listen);
        }
    }

    /** What a worker is doing at a round: handlers running now, attempts finished and failed in the last minute. */
    public record Activity(int handlersRunning, long finishedLastMinute, long failedLastMinute) {
    }

    private final Database store;
    private final Identity identity;
    private final BooleanSupplier listening;
    private final Supplier<List<String>> stalled;
    private final Supplier<Activity> activity;
    private final Duration interval;
    private final String host = hostName();
    private final long pid = ManagementFactory.getRuntimeMXBean().getPid();

    public WorkerRegistry(Database store, Identity identity, BooleanSupplier listening, Supplier<List<String>> stalled,
                          Supplier<Activity> activity, Duration interval) {
        super("docket-registry-" + identity.workerId(), interval, new Backoff(interval, interval), log);
        this.store = store;
        this.identity = identity;
        this.listening = listening;
        this.stalled = stalled;
        this.activity = activity;
        this.interval = interval;
    }

    private static final String VERSION = readVersion();

    /** The Docket version this build reports: the jar's Maven version, else {@code development} (a build from classes). */
    public static String version() {
        return VERSION;
    }

    private static String readVersion() {
        try (InputStream in = WorkerRegistry.class.getResourceAsStream(
                "/META-INF/maven/dev.docket/docket-core/pom.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                return p.getProperty("version", "development");
            }
        } catch (IOException e) {
            // a development build it is
        }
        return "development";
    }

    @Override
    public void runOnce() throws SQLException {
        Integer poolSize = PoolSize.of(store.dataSource()).stream().boxed().findFirst().orElse(null);
        Activity now = activity.get();
        store.workers().register(new Registration(identity.workerId(), host, pid, identity.queues(), identity.kinds(),
                version(), poolSize, identity.connectionsNeeded(), identity.listen(), listening.getAsBoolean(),
                stalled.get(), interval, now.handlersRunning(), now.finishedLastMinute(), now.failedLastMinute()));
    }

    /** A graceful stop leaves no row behind: a worker that is gone on purpose is not reported as stopped. */
    @Override
    protected void afterStop() {
        try {
            store.workers().deregister(identity.workerId());
        } catch (SQLException e) {
            log.warn("docket: could not remove worker {} from the registry ({}); it is pruned an hour after its "
                    + "last heartbeat", identity.workerId(), e.getMessage());
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
