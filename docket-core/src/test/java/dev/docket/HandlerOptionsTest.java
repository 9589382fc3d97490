package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** HandlerOptions' defaults and validation, without a database. */
class HandlerOptionsTest {

    @Test
    void defaultsLeaveLeaseAndTimeoutToTheWorker() {
        assertThat(HandlerOptions.defaults()).isEqualTo(new HandlerOptions(null, null, 1));
        assertThat(new HandlerOptions(Duration.ofSeconds(5), null).payloadVersion()).isEqualTo(1);
    }

    @Test
    void eachWitherChangesOneValue() {
        HandlerOptions o = HandlerOptions.defaults().withLease(Duration.ofSeconds(1)).withTimeout(Duration.ofMillis(1))
                .withPayloadVersion(3);
        assertThat(o).isEqualTo(new HandlerOptions(Duration.ofSeconds(1), Duration.ofMillis(1), 3));
        assertThat(o.withLease(null)).isEqualTo(new HandlerOptions(null, Duration.ofMillis(1), 3));
        assertThat(o.withTimeout(null)).isEqualTo(new HandlerOptions(Duration.ofSeconds(1), null, 3));
    }

    @Test
    void badValuesAreRefusedWithTheValue() {
        assertThatIllegalArgumentException().isThrownBy(() -> HandlerOptions.defaults().withPayloadVersion(0))
                .withMessage("payloadVersion must be >= 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> HandlerOptions.defaults().withLease(Duration.ofMillis(999)))
                .withMessage("lease must be at least 1s, was PT0.999S");
        assertThatIllegalArgumentException().isThrownBy(() -> HandlerOptions.defaults().withTimeout(Duration.ZERO))
                .withMessage("timeout must be positive, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> HandlerOptions.defaults().withTimeout(Duration.ofMillis(-1)))
                .withMessageContaining("timeout must be positive");
    }

    @Test
    void aNewerPayloadVersionWaitsAnHourByDefaultAndAtMostThirtyDays() {
        assertThat(HandlerOptions.defaults().newerVersionWait()).isEqualTo(Duration.ofHours(1));
        assertThat(HandlerOptions.defaults().withNewerVersionWait(Duration.ZERO).newerVersionWait()).isZero();
        assertThat(HandlerOptions.defaults().withNewerVersionWait(Duration.ofDays(30)).newerVersionWait())
                .isEqualTo(Duration.ofDays(30));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> HandlerOptions.defaults().withNewerVersionWait(Duration.ofDays(30).plusNanos(1)))
                .withMessageStartingWith("newerVersionWait must be from 0 to 30 days");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> HandlerOptions.defaults().withNewerVersionWait(Duration.ofNanos(-1)))
                .withMessageStartingWith("newerVersionWait must be from 0 to 30 days");
    }
}
