package dev.docket.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The patroni scenario's bounds come from Patroni's settings and the chaos workers' own, by the arithmetic
 * {@link PatroniTimings} states, and settings Patroni itself would not accept are refused.
 */
class PatroniTimingsTest {

    @Test
    void theBoundsFollowFromPatronisSettingsAndTheWorkersReconnect() {
        PatroniTimings t = new PatroniTimings(30, 10, 10, 20);

        assertThat(t.promoteBound()).as("ttl + 2 x loop_wait").isEqualTo(Duration.ofSeconds(50));
        assertThat(t.switchoverBound()).as("3 x loop_wait + primary_stop_timeout").isEqualTo(Duration.ofSeconds(50));
        assertThat(PatroniTimings.reconnectBound()).as("connection timeout 3 s + producer backoff 2 s + poll 0.5 s")
                .isEqualTo(Duration.ofMillis(5_500));
        assertThat(t.failoverResumeBound()).isEqualTo(Duration.ofMillis(55_500));
        assertThat(t.switchoverResumeBound()).isEqualTo(Duration.ofMillis(55_500));
        assertThat(PatroniTimings.DEFAULT.promoteBound()).isEqualTo(Duration.ofSeconds(14));
        assertThat(PatroniTimings.DEFAULT.failoverResumeBound()).isEqualTo(Duration.ofMillis(19_500));
    }

    @Test
    void settingsThatBreakPatronisRuleAreRefused() {
        assertThatThrownBy(() -> new PatroniTimings(10, 4, 4, 10))
                .hasMessageContaining("loop_wait + 2 x retry_timeout <= ttl");
        assertThatThrownBy(() -> new PatroniTimings(10, 0, 4, 10)).hasMessageContaining("at least 1");
        assertThat(new PatroniTimings(10, 2, 4, 1).ttl()).isEqualTo(10);
    }

    @Test
    void theOptionsReachTheScenarioAndOnlyIt() {
        ChaosOptions o = ChaosOptions.parse(new String[] {"--scenario", "patroni", "--patroni-loop-wait", "10",
                "--patroni-ttl", "30", "--patroni-retry-timeout", "10", "--patroni-stop-timeout", "20"});

        assertThat(o.patroni()).isEqualTo(new PatroniTimings(30, 10, 10, 20));
        assertThat(o.describe()).contains("Patroni ttl 30 s, loop_wait 10 s, retry_timeout 10 s, primary_stop_timeout 20 s");
        assertThat(ChaosOptions.parse(new String[] {"--scenario", "failover-sync"}).patroni())
                .isEqualTo(PatroniTimings.DEFAULT);
    }
}
