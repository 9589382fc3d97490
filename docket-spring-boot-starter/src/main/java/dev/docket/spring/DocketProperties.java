package dev.docket.spring;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code docket.*} properties: every option of {@link dev.docket.Docket.Builder} and
 * {@link dev.docket.Worker.Builder} that a property can hold, with the same defaults. Durations take
 * Spring's syntax ({@code 500ms}, {@code 30s}, {@code 7d}); a value the builders refuse fails startup
 * with the property's name and the rule it broke.
 *
 * @param schema               the schema of Docket's tables, a lower-case identifier
 * @param migrate              whether to create or upgrade Docket's tables at startup; set false when
 *                             Flyway or Liquibase applies {@code Docket.migrationSql()}
 * @param maxPayloadSize       the largest payload accepted at enqueue, as JSON (2 B to 64 MB)
 * @param historyRetention     how long completed and cancelled jobs are kept; 0 deletes them on completion
 * @param deadJobRetention     how long dead jobs are kept in the dead-letter table
 * @param migrationLockTimeout {@code lock_timeout} of each migration once it holds the migration lock
 * @param notifyOnEnqueue      whether enqueues wake idle workers with {@code pg_notify}
 * @param notifyWindow         at most one notification per queue per window from this process
 * @param retry                the retry policy of kinds without their own
 * @param kinds                per-kind settings, by kind name
 * @param queueRateLimits      rate limits on queues, by queue name ({@code Docket.Builder.queueRateLimit})
 * @param worker               the worker the application runs
 */
@ConfigurationProperties("docket")
public record DocketProperties(
        @DefaultValue("docket") String schema,
        @DefaultValue("true") boolean migrate,
        @DefaultValue("256KB") DataSize maxPayloadSize,
        @DefaultValue("7d") Duration historyRetention,
        @DefaultValue("30d") Duration deadJobRetention,
        @DefaultValue("10s") Duration migrationLockTimeout,
        @DefaultValue("true") boolean notifyOnEnqueue,
        @DefaultValue("5ms") Duration notifyWindow,
        @DefaultValue Retry retry,
        Map<String, Kind> kinds,
        Map<String, Rate> queueRateLimits,
        @DefaultValue Worker worker) {

    public DocketProperties {
        kinds = kinds == null ? Map.of() : Map.copyOf(kinds);
        queueRateLimits = queueRateLimits == null ? Map.of() : Map.copyOf(queueRateLimits);
    }

    /**
     * A rate limit ({@code dev.docket.RateLimit}): at most {@code permits} starts per {@code period},
     * cluster-wide, in every window of that length; declared when the worker starts, and left as it is
     * when an operator edited it at run time.
     *
     * @param permits   starts per period, 1 to 1,000,000
     * @param period    the window, whole milliseconds from 1ms to 7d
     * @param perTenant whether each tenant has a budget of its own (default false)
     */
    public record Rate(Integer permits, Duration period, @DefaultValue("false") boolean perTenant) {
    }

    /**
     * A retry policy: attempt n waits {@code min(cap, base * 2^(n-1))}, give or take {@code jitter}.
     *
     * @param maxAttempts attempts before a job goes to the dead-letter table (at least 1)
     * @param base        the first backoff
     * @param cap         the longest backoff
     * @param jitter      the random spread of each backoff, 0 to 1
     */
    public record Retry(@DefaultValue("20") int maxAttempts, @DefaultValue("1s") Duration base,
                        @DefaultValue("1h") Duration cap, @DefaultValue("0.2") double jitter) {
    }

    /**
     * Settings of one kind, for its string form ({@code enqueue("send_email", payload)}) and its handler.
     * Unset values keep the defaults. A kind also declared as a {@code JobKind} bean takes its settings
     * from that bean and must have none here.
     *
     * @param retry          its retry policy, instead of {@code docket.retry}
     * @param payloadVersion the payload version its jobs are stamped with (default 1)
     * @param queue          the queue its jobs go to unless an enqueue names one (default {@code default})
     * @param priority       the priority its jobs get unless an enqueue gives one (default 0; smaller runs first)
     * @param rateLimit      a rate limit on its starts ({@code Docket.Builder.rateLimit}); none by default
     */
    public record Kind(Retry retry, Integer payloadVersion, String queue, Integer priority, Rate rateLimit) {
    }

    /**
     * The worker that starts with the application and stops in its graceful-shutdown phase.
     *
     * @param enabled           whether this application runs jobs; false in a process that only enqueues
     *                          (its jobs then need a worker elsewhere, and maintenance too)
     * @param queues            the queues it serves, each with its concurrency (1 to 10,000); empty means
     *                          {@code default=10}
     * @param shutdownGrace     how long running handlers may finish at shutdown before they are
     *                          interrupted and their jobs released to the queue; keep
     *                          {@code spring.lifecycle.timeout-per-shutdown-phase} a few seconds longer
     * @param pollInterval      how often an idle queue is looked at without a notification (jittered)
     * @param listen            whether to LISTEN for enqueue notifications (one long-lived connection)
     * @param lease             how long a claim holds a job without a heartbeat (at least 1 s)
     * @param heartbeatInterval how often leases are extended; default a third of the lease
     * @param maintenance       whether this worker takes part in the election of the maintenance leader
     * @param maintenanceInterval how often maintenance runs (due jobs, rescues, retention)
     * @param leaderLease       how long the maintenance leader's lease lasts (at least 300 ms)
     * @param maxClaimBatch     the most jobs one claim statement takes; default 1,000 (1 to 10,000)
     * @param workerId          this worker's id in {@code locked_by}; default host/pid/random
     */
    public record Worker(
            @DefaultValue("true") boolean enabled,
            Map<String, Integer> queues,
            @DefaultValue("10s") Duration shutdownGrace,
            @DefaultValue("1s") Duration pollInterval,
            @DefaultValue("true") boolean listen,
            @DefaultValue("30s") Duration lease,
            Duration heartbeatInterval,
            @DefaultValue("true") boolean maintenance,
            @DefaultValue("1s") Duration maintenanceInterval,
            @DefaultValue("10s") Duration leaderLease,
            @DefaultValue("1000") int maxClaimBatch,
            String workerId) {

        /** The concurrency of the one queue served when {@code docket.worker.queues} names none. */
        public static final int DEFAULT_CONCURRENCY = 10;

        public Worker {
            queues = queues == null || queues.isEmpty() ? Map.of("default", DEFAULT_CONCURRENCY)
                    : Collections.unmodifiableMap(new LinkedHashMap<>(queues));
        }
    }
}
