package dev.docket;

import java.time.Duration;

/**
 * Per-kind settings of a handler, declared with it on {@link Worker.Builder#handler(String, Class,
 * JobHandler, HandlerOptions)}. Unset values fall back to the worker's.
 *
 * @param lease   how long a claim of this kind holds the job without a heartbeat; {@code null} for the
 *                worker's lease (default 30 s); at least 1 s
 * @param timeout        how long one attempt may run before its handler is interrupted and the attempt
 *                       fails with a timeout error (then retried per the kind's policy); {@code null} for none
 * @param payloadVersion the payload version the handler reads, default 1. Older payloads are migrated by
 *                       the worker's upcasters ({@link Worker.Builder#upcaster}) before they are mapped;
 *                       a newer one fails permanently with a clear error.
 */
public record HandlerOptions(Duration lease, Duration timeout, int payloadVersion) {

    private static final HandlerOptions DEFAULTS = new HandlerOptions(null, null, 1);

    /** Options with payload version 1. */
    public HandlerOptions(Duration lease, Duration timeout) {
        this(lease, timeout, 1);
    }

    public HandlerOptions {
        if (payloadVersion < 1) {
            throw new IllegalArgumentException("payloadVersion must be >= 1, was " + payloadVersion);
        }
        if (lease != null && lease.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("lease must be at least 1s, was " + lease);
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
    }

    /** The worker's lease, no timeout, payload version 1. */
    public static HandlerOptions defaults() {
        return DEFAULTS;
    }

    public HandlerOptions withLease(Duration lease) {
        return new HandlerOptions(lease, timeout, payloadVersion);
    }

    public HandlerOptions withTimeout(Duration timeout) {
        return new HandlerOptions(lease, timeout, payloadVersion);
    }

    public HandlerOptions withPayloadVersion(int version) {
        return new HandlerOptions(lease, timeout, version);
    }
}
