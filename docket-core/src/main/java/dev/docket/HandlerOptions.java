package dev.docket;

import java.time.Duration;
import java.util.Objects;

/**
 * Per-kind settings of a handler registered by kind name, on {@link Worker.Builder#handler(String, Class,
 * JobHandler, HandlerOptions)}. A {@link JobKind} declares the same settings together with the rest of
 * a kind's; these are the thin form for kinds known only by name. Unset values fall back to the worker's.
 *
 * @param lease            how long a claim of this kind holds the job without a heartbeat; {@code null} for
 *                         the worker's lease (default 30 s); at least 1 s
 * @param timeout          how long one attempt may run before its handler is interrupted and the attempt
 *                         fails with a timeout error (then retried per the kind's policy); {@code null} for none
 * @param payloadVersion   the payload version the handler reads, default 1. Older payloads are migrated by
 *                         the worker's upcasters ({@link Worker.Builder#upcaster}) before they are mapped;
 *                         a newer one waits for a worker that reads it (see {@code newerVersionWait})
 * @param newerVersionWait how long a job of a newer payload version waits for a worker that reads it
 *                         before it fails permanently; default {@link JobKind#DEFAULT_NEWER_VERSION_WAIT}
 *                         (1 hour); from 0 to 30 days (see {@link JobKind.Builder#newerVersionWait})
 */
public record HandlerOptions(Duration lease, Duration timeout, int payloadVersion, Duration newerVersionWait) {

    private static final HandlerOptions DEFAULTS = new HandlerOptions(null, null, 1);

    /** Options with payload version 1 and the default wait for newer payload versions. */
    public HandlerOptions(Duration lease, Duration timeout) {
        this(lease, timeout, 1);
    }

    /** Options with the default wait for newer payload versions. */
    public HandlerOptions(Duration lease, Duration timeout, int payloadVersion) {
        this(lease, timeout, payloadVersion, JobKind.DEFAULT_NEWER_VERSION_WAIT);
    }

    public HandlerOptions {
        Objects.requireNonNull(newerVersionWait, "newerVersionWait");
        if (payloadVersion < 1) {
            throw new IllegalArgumentException("payloadVersion must be >= 1, was " + payloadVersion);
        }
        if (lease != null && lease.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("lease must be at least 1s, was " + lease);
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        if (newerVersionWait.isNegative() || newerVersionWait.compareTo(Duration.ofDays(30)) > 0) {
            throw new IllegalArgumentException("newerVersionWait must be from 0 to 30 days, was " + newerVersionWait);
        }
    }

    /** The worker's lease, no timeout, payload version 1, a 1 hour wait for newer payload versions. */
    public static HandlerOptions defaults() {
        return DEFAULTS;
    }

    public HandlerOptions withLease(Duration lease) {
        return new HandlerOptions(lease, timeout, payloadVersion, newerVersionWait);
    }

    public HandlerOptions withTimeout(Duration timeout) {
        return new HandlerOptions(lease, timeout, payloadVersion, newerVersionWait);
    }

    public HandlerOptions withPayloadVersion(int version) {
        return new HandlerOptions(lease, timeout, version, newerVersionWait);
    }

    public HandlerOptions withNewerVersionWait(Duration wait) {
        return new HandlerOptions(lease, timeout, payloadVersion, wait);
    }
}
