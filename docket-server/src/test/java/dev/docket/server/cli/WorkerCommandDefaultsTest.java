package dev.docket.server.cli;

import static dev.docket.testing.ReadmeDefaults.duration;
import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.ReadmeDefaults;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code docket worker}'s option defaults are the README's table "Options and defaults", which the
 * library's own defaults are compared with in docket-core ({@code DefaultsAgreeTest}).
 */
class WorkerCommandDefaultsTest {

    @Test
    void theWorkerCommandsDefaultsAreTheReadmes() {
        ReadmeDefaults readme = ReadmeDefaults.read();
        WorkerCommand worker = new WorkerCommand();
        new CommandLine(worker).parseArgs();

        assertThat(readme.of("`lease` / `heartbeatInterval`")).isEqualTo(duration(worker.lease) + " / lease ÷ 3");
        assertThat(readme.of("`shutdownGrace`")).isEqualTo(duration(worker.shutdownGrace));
        assertThat(worker.noMaintenance).as("maintenance on, as the README's default").isFalse();
        assertThat(readme.of("`docket worker --metrics-address`")).isEqualTo("off");
        assertThat(worker.metricsAddress).as("no endpoint unless asked for").isNull();
    }
}
