package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The worker's one configuration record: documented defaults, and readable refusals. No database. */
class WorkerConfigTest {

    private static WorkerConfig config(Duration lease, Duration heartbeat, int maxClaimBatch) {
        return new WorkerConfig(null, null, lease, heartbeat, null, null, null, true, null, true, maxClaimBatch,
                100, false);
    }

    @Test
    void nullComponentsTakeTheDocumentedDefaults() {
        WorkerConfig c = config(null, null, 100);

        assertThat(c.workerId()).matches("[A-Za-z0-9_.-]+/\\d+/[0-9a-f]{8}");
        assertThat(c.pollInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.heartbeatInterval()).as("a third of the lease").isEqualTo(Duration.ofSeconds(10));
        assertThat(c.shutdownGrace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.maintenanceInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.leaderLease()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config(Duration.ofSeconds(9), null, 1).heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void badValuesAreRefusedWithTheOptionAndTheValue() {
        assertThatThrownBy(() -> config(null, null, 0))
                .hasMessage("maxClaimBatch must be between 1 and 10000, was 0");
        assertThatThrownBy(() -> config(null, null, 10_001))
                .hasMessage("maxClaimBatch must be between 1 and 10000, was 10001");
        assertThatThrownBy(() -> config(Duration.ofMillis(999), null, 100))
                .hasMessage("lease must be at least 1s, was PT0.999S");
        assertThatThrownBy(() -> config(Duration.ofSeconds(5), Duration.ofSeconds(5), 100))
                .hasMessage("heartbeatInterval (PT5S) must be shorter than the lease (PT5S)");
        assertThatThrownBy(() -> new WorkerConfig("bad id", null, null, null, null, null, null, true, null, true,
                100, 100, false))
                .hasMessageStartingWith("workerId must be 1 to 128 characters");
        assertThatThrownBy(() -> new WorkerConfig(null, null, null, null, null, null, Duration.ofMillis(299), true,
                null, true, 100, 100, false))
                .hasMessage("leaderLease must be at least 300ms, was PT0.299S");
        assertThatThrownBy(() -> new WorkerConfig(null, null, null, null, Duration.ofSeconds(-1), null, null, true,
                null, true, 100, 100, false))
                .hasMessage("shutdownGrace must not be negative, was PT-1S");
    }
}
