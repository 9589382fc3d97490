package dev.docket.spring;

import dev.docket.Docket;
import dev.docket.JobKind;
import dev.docket.KindDefaults;
import dev.docket.RateLimit;
import dev.docket.RetryPolicy;
import dev.docket.Worker;
import java.util.Map;

/**
 * Applies the {@code docket.*} properties to Docket's builders, one builder option per property, so
 * that the builders' own checks decide what is valid and a refusal names the property.
 */
final class DocketSettings {

    private final DocketProperties properties;

    DocketSettings(DocketProperties properties) {
        this.properties = properties;
    }

    void applyTo(Docket.Builder b) {
        DocketProperties p = properties;
        set("docket.schema", p.schema(), () -> b.schema(p.schema()));
        set("docket.max-payload-size", p.maxPayloadSize(), () -> b.maxPayloadBytes(payloadBytes(p)));
        set("docket.history-retention", p.historyRetention(), () -> b.historyRetention(p.historyRetention()));
        set("docket.dead-job-retention", p.deadJobRetention(), () -> b.deadJobRetention(p.deadJobRetention()));
        set("docket.migration-lock-timeout", p.migrationLockTimeout(),
                () -> b.migrationLockTimeout(p.migrationLockTimeout()));
        b.notifyOnEnqueue(p.notifyOnEnqueue());
        set("docket.notify-window", p.notifyWindow(), () -> b.notifyWindow(p.notifyWindow()));
        set("docket.retry", p.retry(), () -> b.defaultRetryPolicy(policy(p.retry())));
        for (Map.Entry<String, DocketProperties.Kind> kind : p.kinds().entrySet()) {
            applyKind(b, kind.getKey(), kind.getValue());
        }
        p.queueRateLimits().forEach((queue, rate) -> set("docket.queue-rate-limits." + queue, rate,
                () -> b.rateLimit(rateLimit(RateLimit.Scope.QUEUE, queue, rate))));
    }

    private static RateLimit rateLimit(RateLimit.Scope scope, String name, DocketProperties.Rate rate) {
        if (rate.permits() == null || rate.period() == null) {
            throw new IllegalArgumentException("a rate limit needs permits and period");
        }
        return new RateLimit(scope, name, rate.permits(), rate.period(), rate.perTenant());
    }

    /** Declares the kind {@code name} with the settings its properties give (a {@link JobKind} is the one way). */
    private static void applyKind(Docket.Builder b, String name, DocketProperties.Kind kind) {
        String prefix = "docket.kinds." + name;
        if (kind.rateLimit() != null) {
            set(prefix + ".rate-limit", kind.rateLimit(),
                    () -> b.rateLimit(rateLimit(RateLimit.Scope.KIND, name, kind.rateLimit())));
        }
        if (kind.retry() == null && kind.payloadVersion() == null && kind.queue() == null && kind.priority() == null) {
            return;
        }
        JobKind.Builder<Object> k;
        try {
            k = JobKind.of(name, Object.class);
        } catch (IllegalArgumentException e) {
            throw new InvalidDocketPropertyException(prefix, name, e);
        }
        if (kind.retry() != null) {
            set(prefix + ".retry", kind.retry(), () -> k.retry(policy(kind.retry())));
        }
        if (kind.payloadVersion() != null) {
            set(prefix + ".payload-version", kind.payloadVersion(), () -> k.payloadVersion(kind.payloadVersion()));
        }
        if (kind.queue() != null || kind.priority() != null) {
            set(prefix, kind, () -> {
                KindDefaults.Builder defaults = KindDefaults.builder();
                if (kind.queue() != null) {
                    defaults.queue(kind.queue());
                }
                if (kind.priority() != null) {
                    defaults.priority(kind.priority());
                }
                k.defaults(defaults.build());
            });
        }
        set(prefix, kind, () -> b.kind(k.build()));
    }

    /** The queues and every other worker option. */
    void applyTo(Worker.Builder b) {
        properties.worker().queues().forEach((queue, concurrency) ->
                set("docket.worker.queues." + queue, concurrency, () -> b.queue(queue, concurrency)));
        applyOptionsTo(b);
    }

    /** Whether workers take part in the maintenance election ({@code docket.worker.maintenance}). */
    boolean maintenance() {
        return properties.worker().maintenance();
    }

    /** Every worker option but the queues: for a worker that runs maintenance only. */
    void applyOptionsTo(Worker.Builder b) {
        DocketProperties.Worker w = properties.worker();
        set("docket.worker.shutdown-grace", w.shutdownGrace(), () -> b.shutdownGrace(w.shutdownGrace()));
        set("docket.worker.poll-interval", w.pollInterval(), () -> b.pollInterval(w.pollInterval()));
        b.listen(w.listen());
        set("docket.worker.lease", w.lease(), () -> b.lease(w.lease()));
        if (w.heartbeatInterval() != null) {
            set("docket.worker.heartbeat-interval", w.heartbeatInterval(),
                    () -> b.heartbeatInterval(w.heartbeatInterval()));
        }
        b.maintenance(w.maintenance());
        set("docket.worker.maintenance-interval", w.maintenanceInterval(),
                () -> b.maintenanceInterval(w.maintenanceInterval()));
        set("docket.worker.leader-lease", w.leaderLease(), () -> b.leaderLease(w.leaderLease()));
        set("docket.worker.max-claim-batch", w.maxClaimBatch(), () -> b.maxClaimBatch(w.maxClaimBatch()));
        if (w.workerId() != null) {
            set("docket.worker.worker-id", w.workerId(), () -> b.workerId(w.workerId()));
        }
    }

    private static int payloadBytes(DocketProperties p) {
        long bytes = p.maxPayloadSize().toBytes();
        // Beyond int the builder's own range check (2 B to 64 MB) says what is allowed.
        return bytes > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) bytes;
    }

    private static RetryPolicy policy(DocketProperties.Retry r) {
        return new RetryPolicy(r.maxAttempts(), r.base(), r.cap(), r.jitter());
    }

    /** Applies one option; a value the builder refuses becomes an error that names the property. */
    private static void set(String property, Object value, Runnable apply) {
        try {
            apply.run();
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidDocketPropertyException(property, value, e instanceof IllegalArgumentException iae ? iae
                    : new IllegalArgumentException(property + " must be set", e));
        }
    }
}
