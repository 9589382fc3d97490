package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** SLOs are configuration in the database: set, replaced, cleared, listed; bad values refused. */
class SloTest extends DocketTest {

    @Test
    void setReplaceClearAndList() {
        DocketAdmin admin = docket().admin();
        admin.setQueueLagSlo("email", Duration.ofSeconds(30));
        admin.setQueueLagSlo("email", Duration.ofMillis(1500));
        admin.setKindPickupSlo("send email", Duration.ofMillis(250));
        admin.setQueueLagSlo("reports", Duration.ofMinutes(5));

        assertThat(admin.slos()).extracting(Slo::target, Slo::name, Slo::objective).containsExactly(
                org.assertj.core.groups.Tuple.tuple(Slo.Target.KIND_PICKUP_P99, "send email", Duration.ofMillis(250)),
                org.assertj.core.groups.Tuple.tuple(Slo.Target.QUEUE_LAG, "email", Duration.ofMillis(1500)),
                org.assertj.core.groups.Tuple.tuple(Slo.Target.QUEUE_LAG, "reports", Duration.ofMinutes(5)));
        assertThat(admin.slos().getFirst().objectiveSeconds()).isEqualTo(0.25);

        admin.setQueueLagSlo("reports", null);
        admin.setKindPickupSlo("send email", null);
        admin.setKindPickupSlo("never set", null);

        assertThat(admin.slos()).extracting(Slo::name).containsExactly("email");
    }

    @Test
    void refusesBadObjectivesAndNames() {
        DocketAdmin admin = docket().admin();
        assertThatIllegalArgumentException().isThrownBy(() -> admin.setQueueLagSlo("email", Duration.ZERO))
                .withMessage("lag SLO must be more than 0 and at most 30 days, was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.setQueueLagSlo("email", Duration.ofSeconds(-1)));
        assertThatIllegalArgumentException().isThrownBy(() -> admin.setKindPickupSlo("k", Duration.ofDays(31)))
                .withMessageContaining("pickup p99 SLO must be more than 0 and at most 30 days");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.setQueueLagSlo("bad queue!", Duration.ofSeconds(1)));
        assertThatIllegalArgumentException().isThrownBy(() -> admin.setKindPickupSlo("bad\u0000kind", Duration.ofSeconds(1)));
        assertThatIllegalArgumentException().isThrownBy(() -> admin.setKindPickupSlo("x\ud800", Duration.ofSeconds(1)));
        assertThat(admin.slos()).isEmpty();
    }
}
