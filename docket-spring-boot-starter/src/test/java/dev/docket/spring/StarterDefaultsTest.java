package dev.docket.spring;

import static dev.docket.testing.ReadmeDefaults.bytes;
import static dev.docket.testing.ReadmeDefaults.count;
import static dev.docket.testing.ReadmeDefaults.duration;
import static dev.docket.testing.ReadmeDefaults.onOff;
import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.ReadmeDefaults;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The starter's property defaults ({@code @DefaultValue} on {@link DocketProperties}) are the README's
 * table "Options and defaults", which the library's own defaults are compared with in docket-core
 * ({@code DefaultsAgreeTest}): a default changed in one place and not the others fails here or there.
 */
class StarterDefaultsTest {

    private final ReadmeDefaults readme = ReadmeDefaults.read();
    private final DocketProperties p = new Binder(new MapConfigurationPropertySource(Map.of()))
            .bindOrCreate("docket", DocketProperties.class);

    @Test
    void theDocketPropertiesDefaultsAreTheReadmes() {
        DocketProperties.Retry retry = p.retry();

        assertThat(readme.of("`Docket.Builder.schema`")).isEqualTo("`" + p.schema() + "`");
        assertThat(readme.of("`defaultRetryPolicy` / `retryPolicy(kind, …)`")).isEqualTo(retry.maxAttempts()
                + " attempts, base " + duration(retry.base()) + ", cap " + duration(retry.cap()) + ", jitter " + retry.jitter());
        assertThat(readme.of("`maxPayloadBytes`")).isEqualTo(bytes(p.maxPayloadSize().toBytes()));
        assertThat(readme.of("`historyRetention`")).isEqualTo(duration(p.historyRetention()));
        assertThat(readme.of("`deadJobRetention`")).isEqualTo(duration(p.deadJobRetention()));
        assertThat(readme.of("`notifyOnEnqueue`, `notifyWindow`"))
                .isEqualTo(onOff(p.notifyOnEnqueue()) + ", " + duration(p.notifyWindow()));
    }

    @Test
    void theWorkerPropertiesDefaultsAreTheReadmes() {
        DocketProperties.Worker w = p.worker();

        assertThat(readme.of("`pollInterval`")).isEqualTo(duration(w.pollInterval()) + ", jittered");
        assertThat(readme.of("`listen`")).isEqualTo(onOff(w.listen()));
        assertThat(w.heartbeatInterval()).as("unset: a third of the lease, as in the library").isNull();
        assertThat(readme.of("`lease` / `heartbeatInterval`")).isEqualTo(duration(w.lease()) + " / lease ÷ 3");
        assertThat(readme.of("`shutdownGrace`")).isEqualTo(duration(w.shutdownGrace()));
        assertThat(readme.of("`maintenance`, `maintenanceInterval`"))
                .isEqualTo(onOff(w.maintenance()) + ", " + duration(w.maintenanceInterval()));
        assertThat(readme.of("`maxClaimBatch`")).isEqualTo(count(w.maxClaimBatch()));
        assertThat(readme.of("`leaderLease`")).isEqualTo(duration(w.leaderLease()));
    }
}
