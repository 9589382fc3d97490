package dev.docket;

import dev.docket.internal.rules.JobOptionRules;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A rate limit: at most {@code permits} jobs start per {@code period}, across every worker and process
 * of the cluster, in every window of that length (a sliding window, not a bucket refilled at fixed
 * instants, so there is no burst of twice the rate at a boundary). A start is a claim: the moment the
 * claim statement takes a job, by the database clock (the job's {@code attemptedAt}); a queue that a
 * limit concerns is claimed without claiming ahead, so a handler starts within milliseconds of it.
 *
 * <p>A limit on a {@link Scope#KIND} counts that kind's starts in whatever queue its jobs are; one on a
 * {@link Scope#QUEUE} counts every start of the queue. With {@code perTenant}, each tenant
 * ({@link JobOptions.Builder#tenant}) has a budget of its own; jobs without a tenant share one.
 * Jobs that would exceed a limit stay ready and are skipped by the claim, which keeps taking the
 * jobs of other kinds (and other tenants) of the same queue.
 *
 * <p>Declare limits with {@link Docket.Builder#rateLimit(String, int, Duration)},
 * {@link Docket.Builder#queueRateLimit} or {@link Docket.Builder#rateLimit(RateLimit)}; change them at run
 * time with {@link DocketAdmin#setRateLimit}.
 *
 * @param scope     what the limit counts
 * @param name      the kind or the queue; by the rules of {@link JobOptions.Builder#queue} for a queue, of
 *                  kind names for a kind
 * @param permits   starts per period, from 1 to {@value #MAX_PERMITS}
 * @param period    the window, a whole number of milliseconds from 1 ms to 7 days
 * @param perTenant whether each tenant has a budget of its own (default false)
 */
public record RateLimit(Scope scope, String name, int permits, Duration period, boolean perTenant) {

    /** The most permits a limit may have per period. */
    public static final int MAX_PERMITS = 1_000_000;

    /** The longest period. */
    public static final Duration MAX_PERIOD = Duration.ofDays(7);

    /** What a limit counts. */
    public enum Scope {
        /** The starts of one kind, in any queue. */
        KIND,
        /** The starts of every job in one queue. */
        QUEUE
    }

    /**
     * Checks every field.
     *
     * @throws IllegalArgumentException if a field breaks its rule; the message names it
     * @throws NullPointerException     if {@code scope}, {@code name} or {@code period} is null
     */
    public RateLimit {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(period, "period");
        if (scope == Scope.KIND) {
            JobOptionRules.checkKind(name);
        } else {
            JobOptionRules.checkQueue(Objects.requireNonNull(name, "name"));
        }
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("permits must be between 1 and " + MAX_PERMITS + ", was " + permits);
        }
        if (period.isNegative() || period.isZero() || period.compareTo(MAX_PERIOD) > 0) {
            throw new IllegalArgumentException("period must be between 1 ms and 7 days, was " + period);
        }
        if (period.toNanos() % 1_000_000 != 0 || period.toMillis() < 1) {
            throw new IllegalArgumentException("period must be a whole number of milliseconds (at least 1 ms), was "
                    + period);
        }
    }

    /** A limit on the starts of {@code kind}, one budget for all tenants. */
    public static RateLimit ofKind(String kind, int permits, Duration period) {
        return new RateLimit(Scope.KIND, kind, permits, period, false);
    }

    /** A limit on the starts of every job in {@code queue}, one budget for all tenants. */
    public static RateLimit ofQueue(String queue, int permits, Duration period) {
        return new RateLimit(Scope.QUEUE, queue, permits, period, false);
    }

    /** This limit with a budget of its own for each tenant (jobs without a tenant share one). */
    public RateLimit perTenantBudgets() {
        return new RateLimit(scope, name, permits, period, true);
    }

    /** For messages: {@code kind 'send_email': 50 per 1s (per tenant)}. */
    public String describe() {
        return scope.name().toLowerCase(Locale.ROOT) + " '" + name + "': " + permits + " per "
                + (period.toMillis() % 1000 == 0 ? period.toSeconds() + "s" : period.toMillis() + "ms")
                + (perTenant ? " per tenant" : "");
    }
}
