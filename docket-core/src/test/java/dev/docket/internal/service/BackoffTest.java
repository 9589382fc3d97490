package dev.docket.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one backoff formula, with its jitter pinned (0.5 = none, 0 = -20%, 1 = +20%). */
class BackoffTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private static Backoff backoff(long baseMs, long capMs, double random) {
        return new Backoff(Duration.ofMillis(baseMs), Duration.ofMillis(capMs), () -> random);
    }

    @Test
    void doublesPerFailureFromTwiceTheBaseUpToTheCap() {
        Backoff b = backoff(50, 2_000, 0.5);

        assertThat(b.delayNanos(1, false)).isEqualTo(100 * MS);
        assertThat(b.delayNanos(2, false)).isEqualTo(200 * MS);
        assertThat(b.delayNanos(5, false)).isEqualTo(1_600 * MS);
        assertThat(b.delayNanos(6, false)).as("3.2 s capped").isEqualTo(2_000 * MS);
        assertThat(b.delayNanos(1_000, false)).as("no overflow however many failures").isEqualTo(2_000 * MS);
    }

    @Test
    void stopsDoublingAfterSixFailuresWhenTheCapIsHigher() {
        Backoff b = backoff(100, 60_000, 0.5);

        assertThat(b.delayNanos(6, false)).isEqualTo(6_400 * MS);
        assertThat(b.delayNanos(7, false)).isEqualTo(6_400 * MS);
        assertThat(b.delayNanos(Integer.MAX_VALUE, false)).isEqualTo(6_400 * MS);
    }

    @Test
    void lostConnectionsAreRetriedWithinFiftyMillisecondsTwentyTimesThenBackOff() {
        Backoff b = backoff(1_000, 2_000, 0.5);

        assertThat(b.delayNanos(1, true)).isEqualTo(50 * MS);
        assertThat(b.delayNanos(Backoff.FAST_RETRIES, true)).isEqualTo(50 * MS);
        assertThat(b.delayNanos(Backoff.FAST_RETRIES + 1, true)).isEqualTo(2_000 * MS);
        assertThat(backoff(20, 2_000, 0.5).delayNanos(1, true)).as("never longer than the base").isEqualTo(20 * MS);
    }

    @Test
    void aServiceThatKeepsItsCadenceNeverWaitsLongerThanItsInterval() {
        Backoff heartbeat = Backoff.keepingCadence(Duration.ofSeconds(10));

        for (int failures = 1; failures < 100; failures++) {
            assertThat(heartbeat.delayNanos(failures, false)).isLessThanOrEqualTo(Duration.ofSeconds(12).toNanos());
        }
        assertThat(new Backoff(Duration.ofSeconds(3), Duration.ofSeconds(1), () -> 0.5).delayNanos(9, false))
                .as("a cap below the base is raised to the base").isEqualTo(Duration.ofSeconds(3).toNanos());
    }

    @Test
    void jitterIsTwentyPercentEitherWay() {
        assertThat(backoff(50, 2_000, 0.0).delayNanos(1, false)).isEqualTo(80 * MS);
        assertThat(backoff(50, 2_000, 1.0).delayNanos(1, false)).isEqualTo(120 * MS);
        assertThat(backoff(50, 2_000, 0.0).jittered(1_000 * MS)).isEqualTo(800 * MS);
    }

    @Test
    void refusesABaseThatIsNotPositive() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("base must be positive, was PT0S");
    }
}
