package dev.docket;

import static dev.docket.testing.ReadmeDefaults.bytes;
import static dev.docket.testing.ReadmeDefaults.count;
import static dev.docket.testing.ReadmeDefaults.duration;
import static dev.docket.testing.ReadmeDefaults.onOff;
import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import dev.docket.testing.ReadmeDefaults;
import org.junit.jupiter.api.Test;

/**
 * The library's defaults are the README's: every row of its table "Options and defaults" that the
 * builders set is compared with what an untouched builder holds. The Spring Boot starter's properties
 * and the CLI's options are compared with the same table by their own modules' tests.
 */
class DefaultsAgreeTest extends DocketTest {

    private final ReadmeDefaults readme = ReadmeDefaults.read();

    @Test
    void theDocketBuildersDefaultsAreTheReadmes() {
        Docket.Builder b = Docket.builder(dataSource());
        RetryPolicy retry = b.defaultRetryPolicy;

        assertThat(readme.of("`Docket.Builder.schema`")).isEqualTo("`" + b.schema + "`");
        assertThat(readme.of("`defaultRetryPolicy` / `retryPolicy(kind, …)`")).isEqualTo(retry.maxAttempts()
                + " attempts, base " + duration(retry.base()) + ", cap " + duration(retry.cap()) + ", jitter " + retry.jitter());
        assertThat(readme.of("`maxPayloadBytes`")).isEqualTo(bytes(b.maxPayloadBytes));
        assertThat(readme.of("`historyRetention`")).isEqualTo(duration(b.historyRetention));
        assertThat(readme.of("`deadJobRetention`")).isEqualTo(duration(b.deadJobRetention));
        assertThat(readme.of("`notifyOnEnqueue`, `notifyWindow`"))
                .isEqualTo(onOff(b.notifyOnEnqueue) + ", " + duration(b.notifyWindow));
        assertThat(readme.of("`networkTimeout`")).isEqualTo(duration(b.networkTimeout));
        assertThat(b.meterRegistry).isNull();
        assertThat(readme.of("`meterRegistry`, `metricsKindLimit`, `metricsInterval`"))
                .isEqualTo("none, " + b.metricsKindLimit + ", " + duration(b.metricsInterval));
        assertThat(readme.of("`databaseGauges`")).isEqualTo(onOff(b.databaseGauges));
    }

    @Test
    void theWorkerBuildersDefaultsAreTheReadmes() {
        WorkerConfig c = docket().worker().config();

        assertThat(readme.of("`pollInterval`")).isEqualTo(duration(c.pollInterval()) + ", jittered");
        assertThat(readme.of("`listen`")).isEqualTo(onOff(c.listen()));
        assertThat(c.heartbeatInterval()).isEqualTo(c.lease().dividedBy(3));
        assertThat(readme.of("`lease` / `heartbeatInterval`")).isEqualTo(duration(c.lease()) + " / lease ÷ 3");
        assertThat(readme.of("`shutdownGrace`")).isEqualTo(duration(c.shutdownGrace()));
        assertThat(readme.of("`maintenance`, `maintenanceInterval`"))
                .isEqualTo(onOff(c.maintenance()) + ", " + duration(c.maintenanceInterval()));
        assertThat(readme.of("`maxClaimBatch`")).isEqualTo(count(c.maxClaimBatch()));
        assertThat(readme.of("`claimAhead`")).isEqualTo(count(c.claimAhead()));
        assertThat(readme.of("`asyncCommit`")).isEqualTo(String.valueOf(c.asyncCommit()));
        assertThat(readme.of("`leaderLease`")).isEqualTo(duration(c.leaderLease()));
    }
}
