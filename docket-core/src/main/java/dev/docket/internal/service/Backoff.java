package dev.docket.internal.service;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * How long a service waits after failed rounds: {@code base} doubled per failure in a row, at most
 * {@code cap}, jittered by ±20% so that the workers of a cluster do not retry in step.
 *
 * <p>A lost connection is the exception: after a database restart every pooled connection is
 * broken and the pool learns so only as each is used and fails, so the first
 * {@value #FAST_RETRIES} such failures in a row are retried after at most 50 ms (each evicts a dead
 * connection) and work resumes as soon as the database is back.
 *
 * <p>The cap is what each service must keep: the heartbeat and the leader election cap at their
 * own interval (a longer wait lets leases lapse), claims, outcomes and maintenance at two seconds,
 * so that they resume within about two seconds after an outage.
 */
public final class Backoff {

    /** Lost connections in a row that are retried at once before backing off. */
    static final int FAST_RETRIES = 20;
    private static final long FAST_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** 2^6 = 64 times the base at most, so the doubling cannot overflow before the cap applies. */
    private static final int MAX_DOUBLINGS = 6;

    private final long baseNanos;
    private final long capNanos;
    private final DoubleSupplier random;

    /** @param cap the longest wait; a cap below {@code base} is raised to {@code base} */
    public Backoff(Duration base, Duration cap) {
        this(base, cap, () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble());
    }

    Backoff(Duration base, Duration cap, DoubleSupplier random) {
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("base must be positive, was " + base);
        }
        this.baseNanos = base.toNanos();
        this.capNanos = Math.max(baseNanos, cap.toNanos());
        this.random = random;
    }

    /** A backoff that never waits longer than {@code interval}: for services whose cadence is their purpose. */
    public static Backoff keepingCadence(Duration interval) {
        return new Backoff(interval, interval);
    }

    /**
     * The wait, in nanoseconds, after {@code failures} (at least 1) failed rounds in a row, the last
     * of which lost its connection or not.
     */
    public long delayNanos(int failures, boolean connectionLost) {
        long delay = connectionLost && failures <= FAST_RETRIES
                ? Math.min(baseNanos, FAST_RETRY_NANOS)
                : Math.min(capNanos, baseNanos << Math.min(Math.max(failures, 1), MAX_DOUBLINGS));
        return jittered(delay);
    }

    /** {@code nanos} ±20%. */
    public long jittered(long nanos) {
        return (long) (nanos * (0.8 + 0.4 * random.getAsDouble()));
    }
}
