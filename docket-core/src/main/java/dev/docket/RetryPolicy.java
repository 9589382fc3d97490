package dev.docket;

import java.time.Duration;
import java.util.Objects;

/**
 * How a kind of job is retried: attempt {@code n} that fails waits
 * {@code min(cap, base * 2^(n-1))}, spread by ±{@code jitter} (a fraction), before it runs again;
 * after {@code maxAttempts} attempts the job goes to the dead-letter table.
 *
 * <p>Defaults ({@link #defaults()}): 20 attempts, base 1 s, cap 1 h, jitter 0.2 — about 6.5 h from
 * the first failure to the dead-letter table.
 *
 * @param maxAttempts attempts before the dead-letter table, at least 1; a job's own
 *                    {@link JobOptions.Builder#maxAttempts} wins over it
 * @param base        the first backoff, more than zero
 * @param cap         the longest backoff, at least {@code base}
 * @param jitter      a fraction from 0 (none) to 1 by which each backoff is randomly spread
 */
public record RetryPolicy(int maxAttempts, Duration base, Duration cap, double jitter) {

    private static final RetryPolicy DEFAULTS = new RetryPolicy(20, Duration.ofSeconds(1), Duration.ofHours(1), 0.2);

    public RetryPolicy {
        Objects.requireNonNull(base, "base");
        Objects.requireNonNull(cap, "cap");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
        }
        if (base.isNegative() || base.isZero()) {
            throw new IllegalArgumentException("base must be positive, was " + base);
        }
        if (cap.compareTo(base) < 0) {
            throw new IllegalArgumentException("cap must be >= base (" + base + "), was " + cap);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("jitter must be between 0 and 1, was " + jitter);
        }
    }

    /** 20 attempts, base 1 s, cap 1 h, jitter 0.2. */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /**
     * The backoff after failed attempt {@code attempt}, for a uniform {@code random} in [0, 1):
     * the capped exponential delay times a factor in [1 - jitter, 1 + jitter), never above the cap.
     */
    public Duration backoff(int attempt, double random) {
        int exponent = Math.max(0, Math.min(attempt - 1, 62));
        double raw = base.toMillis() * Math.pow(2, exponent);
        double capped = Math.min(raw, cap.toMillis());
        double spread = capped * (1 + jitter * (2 * random - 1));
        return Duration.ofMillis(Math.max(1, Math.round(Math.min(spread, cap.toMillis()))));
    }

    public RetryPolicy withMaxAttempts(int maxAttempts) {
        return new RetryPolicy(maxAttempts, base, cap, jitter);
    }

    public RetryPolicy withBackoff(Duration base, Duration cap) {
        return new RetryPolicy(maxAttempts, base, cap, jitter);
    }

    public RetryPolicy withJitter(double jitter) {
        return new RetryPolicy(maxAttempts, base, cap, jitter);
    }
}
