package dev.docket.chaos;

import java.time.Duration;
import java.util.Locale;

/**
 * Patroni's timing settings for the {@code patroni} scenario (whole seconds, as Patroni takes them), and
 * the bounds of its checks, derived from them and from the chaos workers' own settings rather than
 * guessed.
 *
 * <p>A failover: the dead primary's Patroni last renewed its leader key's lease at most {@code loop_wait}
 * before the kill (Patroni renews it once per cycle), so the key expires at most {@code ttl} after the
 * kill; the standby's Patroni watches the key and runs its cycle when it goes, at the latest at its next
 * cycle ({@code loop_wait}); it takes the key and promotes, waiting up to {@code loop_wait} for
 * PostgreSQL to leave recovery. Hence kill to promotion at most {@code ttl + 2 × loop_wait}.
 *
 * <p>A switchover: the leader acts on the request at its next cycle ({@code loop_wait}, woken at once
 * when idle), stops PostgreSQL (in synchronous mode Patroni kills it after {@code primary_stop_timeout}),
 * releases the key, and the candidate takes it and promotes as above. Hence at most
 * {@code 3 × loop_wait + primary_stop_timeout}.
 *
 * <p>After either, a worker claims again once it reconnects: a borrow that began before the promotion
 * fails after the pool's connection timeout, the producer backs off at most 2 s (Docket's producer
 * backoff) and polls every half second ({@link ChaosWorker}'s settings).
 *
 * @param ttl                 the leader key's time to live ({@code ttl}, Patroni's default 30)
 * @param loopWait            the HA loop's period ({@code loop_wait}, default 10)
 * @param retryTimeout        how long Patroni retries the DCS and PostgreSQL before it gives up and demotes
 *                            ({@code retry_timeout}, default 10)
 * @param primaryStopTimeout  how long a synchronous-mode primary may take to stop before it is killed
 *                            ({@code primary_stop_timeout})
 */
record PatroniTimings(int ttl, int loopWait, int retryTimeout, int primaryStopTimeout) {

    /** The scenario's defaults: shorter than Patroni's own (30, 10, 10) so that a failover fits a CI run. */
    static final PatroniTimings DEFAULT = new PatroniTimings(10, 2, 4, 10);
    /** Docket's producer backs off at most this long between failed claims. */
    static final Duration PRODUCER_BACKOFF = Duration.ofSeconds(2);

    PatroniTimings {
        if (ttl < 1 || loopWait < 1 || retryTimeout < 1 || primaryStopTimeout < 1) {
            throw new IllegalArgumentException("Patroni's timings are whole seconds, at least 1");
        }
        // Patroni's own rule: a leader must be able to retry the DCS twice within one lease and still renew it.
        if (loopWait + 2 * retryTimeout > ttl) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "Patroni needs loop_wait + 2 x retry_timeout <= ttl, was %d + 2 x %d > %d", loopWait, retryTimeout, ttl));
        }
    }

    /** Kill of the primary (PostgreSQL and Patroni) to the standby promoted: {@code ttl + 2 × loop_wait}. */
    Duration promoteBound() {
        return Duration.ofSeconds(ttl + 2L * loopWait);
    }

    /** {@code patronictl switchover} to the candidate taking writes: {@code 3 × loop_wait + primary_stop_timeout}. */
    Duration switchoverBound() {
        return Duration.ofSeconds(3L * loopWait + primaryStopTimeout);
    }

    /** From a promotion to a worker's next claim: the pool's connection timeout, a producer backoff, a poll. */
    static Duration reconnectBound() {
        return ChaosWorker.CONNECTION_TIMEOUT.plus(PRODUCER_BACKOFF).plus(ChaosWorker.POLL_INTERVAL);
    }

    /** The kill to every worker's first claim on the new primary. */
    Duration failoverResumeBound() {
        return promoteBound().plus(reconnectBound());
    }

    /** The switchover's start to every worker's first claim on the new primary. */
    Duration switchoverResumeBound() {
        return switchoverBound().plus(reconnectBound());
    }

    String describe() {
        return String.format(Locale.ROOT, "ttl %d s, loop_wait %d s, retry_timeout %d s, primary_stop_timeout %d s",
                ttl, loopWait, retryTimeout, primaryStopTimeout);
    }
}
