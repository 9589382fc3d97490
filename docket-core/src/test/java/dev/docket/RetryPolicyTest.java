package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** RetryPolicy's backoff arithmetic and validation, without a database. */
class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(20, Duration.ofSeconds(1), Duration.ofHours(1), 0.2);

    /** The first backoff is the base spread by the jitter: random 0 is the low end, 0.5 the middle, 0.999 just under the high end. */
    @Test
    void firstBackoffIsBaseSpreadByJitter() {
        assertThat(policy.backoff(1, 0)).isEqualTo(Duration.ofMillis(800));
        assertThat(policy.backoff(1, 0.5)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.backoff(1, 0.999)).isEqualTo(Duration.ofMillis(1200));
    }

    /** Each attempt doubles the backoff. */
    @Test
    void backoffDoublesPerAttempt() {
        assertThat(policy.backoff(2, 0.5)).isEqualTo(Duration.ofSeconds(2));
        assertThat(policy.backoff(3, 0.5)).isEqualTo(Duration.ofSeconds(4));
        assertThat(policy.backoff(11, 0.5)).isEqualTo(Duration.ofSeconds(1024));
        assertThat(policy.backoff(3, 0)).isEqualTo(Duration.ofMillis(3200));
    }

    /** Large attempts (up to Integer.MAX_VALUE) stay at the cap, spread downwards only, never above it and never overflowing. */
    @Test
    void largeAttemptsAreCapped() {
        Duration cap = Duration.ofHours(1);
        for (int attempt : new int[] {13, 40, 63, 64, 1000, Integer.MAX_VALUE}) {
            assertThat(policy.backoff(attempt, 0.5)).as("attempt %d", attempt).isEqualTo(cap);
            assertThat(policy.backoff(attempt, 0.999)).as("attempt %d", attempt).isEqualTo(cap);
            assertThat(policy.backoff(attempt, 0)).as("attempt %d", attempt).isEqualTo(Duration.ofMinutes(48));
        }
    }

    /** Attempts below 1 are treated as the first; no jitter means exactly the exponential delay. */
    @Test
    void degenerateInputsStayInRange() {
        assertThat(policy.backoff(0, 0.5)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.backoff(-5, 0.5)).isEqualTo(Duration.ofSeconds(1));
        RetryPolicy exact = policy.withJitter(0);
        assertThat(exact.backoff(4, 0)).isEqualTo(exact.backoff(4, 0.999)).isEqualTo(Duration.ofSeconds(8));
        RetryPolicy full = policy.withJitter(1);
        assertThat(full.backoff(1, 0)).as("never zero").isPositive();
    }

    /** Every sample lies within [1 - jitter, 1 + jitter] of the capped delay and never above the cap. */
    @Test
    void samplesStayWithinJitterBounds() {
        RetryPolicy p = new RetryPolicy(10, Duration.ofMillis(200), Duration.ofSeconds(2), 0.5);
        for (int attempt = 1; attempt <= 8; attempt++) {
            double exponential = Math.min(2000, 200 * Math.pow(2, attempt - 1));
            for (double r = 0; r < 1; r += 0.01) {
                long ms = p.backoff(attempt, r).toMillis();
                assertThat(ms).as("attempt %d random %.2f", attempt, r)
                        .isBetween(Math.round(exponential * 0.5), Math.min(2000, Math.round(exponential * 1.5)));
            }
        }
    }

    /** Bad values are refused with messages that name the field and the value. */
    @Test
    void invalidPoliciesAreRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetryPolicy(0, Duration.ofSeconds(1), Duration.ofHours(1), 0.2))
                .withMessage("maxAttempts must be >= 1, was 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetryPolicy(5, Duration.ZERO, Duration.ofHours(1), 0.2))
                .withMessage("base must be positive, was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetryPolicy(5, Duration.ofSeconds(-1), Duration.ofHours(1), 0.2))
                .withMessageContaining("base must be positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetryPolicy(5, Duration.ofSeconds(10), Duration.ofSeconds(5), 0.2))
                .withMessageContaining("cap must be >= base").withMessageContaining("was PT5S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofHours(1), 1.5))
                .withMessage("jitter must be between 0 and 1, was 1.5");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofHours(1), -0.1))
                .withMessageContaining("jitter must be between 0 and 1");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofHours(1), Double.NaN))
                .withMessageContaining("jitter must be between 0 and 1");
        assertThat(RetryPolicy.defaults()).isEqualTo(new RetryPolicy(20, Duration.ofSeconds(1), Duration.ofHours(1), 0.2));
    }

    /** The smallest valid values: one attempt, a cap equal to the base, no jitter or full jitter. */
    @Test
    void boundaryValuesAreAccepted() {
        RetryPolicy once = new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(1), 0);
        assertThat(once.maxAttempts()).isEqualTo(1);
        assertThat(once.backoff(5, 0.5)).isEqualTo(Duration.ofMillis(1));
        assertThat(once.withJitter(1).jitter()).isEqualTo(1);
    }

    /** Each wither changes its own values and keeps the others. */
    @Test
    void withersChangeOnlyTheirValues() {
        assertThat(policy.withMaxAttempts(3)).isEqualTo(new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofHours(1), 0.2));
        assertThat(policy.withBackoff(Duration.ofSeconds(2), Duration.ofMinutes(1)))
                .isEqualTo(new RetryPolicy(20, Duration.ofSeconds(2), Duration.ofMinutes(1), 0.2));
        assertThat(policy.withJitter(0.5)).isEqualTo(new RetryPolicy(20, Duration.ofSeconds(1), Duration.ofHours(1), 0.5));
        assertThatIllegalArgumentException().isThrownBy(() -> policy.withMaxAttempts(0));
    }
}
