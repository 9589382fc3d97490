package dev.docket;

import dev.docket.internal.rules.TextRules;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Everything a {@link Worker} is configured with, filled by {@link Worker.Builder}. A null component
 * takes its default; a bad value is refused with a message that names the option and the value.
 *
 * @param workerId                 id in {@code locked_by}; default host/pid/random; 1 to 128 of A-Z a-z 0-9 _ . : @ / -
 * @param pollInterval             how often an idle producer looks for jobs unasked; default 1 s, jittered ±20%
 * @param lease                    how long a claim holds a job without a heartbeat; default 30 s, at least 1 s
 * @param heartbeatInterval        how often leases are extended; default a third of the lease; shorter than the lease
 * @param shutdownGrace            how long {@link Worker#close()} lets handlers finish; default 10 s, may be zero
 * @param maintenanceInterval      how often the maintenance leader runs a round; default 1 s
 * @param leaderLease              the maintenance leader's lease; default 10 s, at least 300 ms
 * @param listen                   whether to LISTEN for enqueue notifications; default true
 * @param listenerDataSource       where the LISTEN connection comes from; default null: the Docket's data source
 * @param maintenance              whether to take part in the maintenance leader's election; default true
 * @param maxClaimBatch            the most jobs one claim statement takes; default 1,000, 1 to 10,000
 * @param claimAhead               the most jobs per queue claimed ahead of free slots; default 1,000, 0 (off) to 10,000;
 *                                 never more than the slots start within 50 ms at the measured running time
 * @param asyncCommit              whether claims' companions (outcomes, heartbeats) commit without waiting for
 *                                 their WAL flush; default false (see {@link Worker.Builder#asyncCommit})
 */
record WorkerConfig(String workerId, Duration pollInterval, Duration lease, Duration heartbeatInterval,
                    Duration shutdownGrace, Duration maintenanceInterval, Duration leaderLease, boolean listen,
                    DataSource listenerDataSource, boolean maintenance, int maxClaimBatch, int claimAhead,
                    boolean asyncCommit) {

    static final int DEFAULT_MAX_CLAIM_BATCH = 1000;
    static final int DEFAULT_CLAIM_AHEAD = 1000;
    /** The most outcomes one write takes. */
    static final int COMPLETER_BATCH_SIZE = 1000;
    /** How long a closing worker waits for outcomes to be written. */
    static final Duration COMPLETER_DRAIN_TIMEOUT = Duration.ofSeconds(10);
    /** How long a closing worker waits for interrupted handlers before abandoning them. */
    static final Duration INTERRUPT_WAIT = Duration.ofSeconds(1);
    /** How often queue settings (caps, pauses, rate limits) are read. */
    static final Duration QUEUE_SETTINGS_INTERVAL = Duration.ofSeconds(1);
    /** How often the idle listener connection is checked with a round trip. */
    static final Duration LISTENER_LIVENESS_INTERVAL = Duration.ofSeconds(10);
    /**
     * How long one round of a service may wait (for a pool connection, say) before the worker logs it and
     * reports it in {@link Worker#health()}.
     */
    static final Duration STALL_TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern WORKER_ID = Pattern.compile("[A-Za-z0-9_.:@/-]{1,128}");

    WorkerConfig {
        workerId = workerId == null ? defaultWorkerId() : checkWorkerId(workerId);
        pollInterval = positive("pollInterval", pollInterval, Duration.ofSeconds(1));
        lease = lease == null ? Duration.ofSeconds(30) : OptionChecks.atLeast("lease", lease, Duration.ofSeconds(1));
        heartbeatInterval = positive("heartbeatInterval", heartbeatInterval, lease.dividedBy(3));
        if (heartbeatInterval.compareTo(lease) >= 0) {
            throw new IllegalArgumentException("heartbeatInterval (" + heartbeatInterval
                    + ") must be shorter than the lease (" + lease + ")");
        }
        shutdownGrace = nonNegative("shutdownGrace", shutdownGrace, Duration.ofSeconds(10));
        maintenanceInterval = positive("maintenanceInterval", maintenanceInterval, Duration.ofSeconds(1));
        leaderLease = leaderLease == null ? Duration.ofSeconds(10) : OptionChecks.atLeast("leaderLease", leaderLease, Duration.ofMillis(300));
        OptionChecks.between("maxClaimBatch", maxClaimBatch, 1, 10_000);
        OptionChecks.between("claimAhead", claimAhead, 0, 10_000);
    }

    private static Duration positive(String name, Duration value, Duration otherwise) {
        return value == null ? otherwise : OptionChecks.positive(name, value);
    }

    private static Duration nonNegative(String name, Duration value, Duration otherwise) {
        return value == null ? otherwise : OptionChecks.nonNegative(name, value);
    }

    static String checkWorkerId(String workerId) {
        if (workerId == null || !WORKER_ID.matcher(workerId).matches()) {
            throw new IllegalArgumentException("workerId must be 1 to 128 characters of A-Z a-z 0-9 _ . : @ / -, was "
                    + TextRules.describe(workerId));
        }
        return workerId;
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
