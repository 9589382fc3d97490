package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static dev.docket.server.cli.CliTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.Workflow;
import dev.docket.WorkflowInfo;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code docket workflow show|cancel|retry ID}, in-process against the test database. */
class WorkflowCliTest extends DocketTest {

    private final Map<String, String> env = new HashMap<>();

    private Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", db.jdbcUrl(), "--schema", schema));
        return CliRunner.run(env, all.toArray(String[]::new));
    }

    @Test
    void showCancelAndRetryAWorkflow() {
        Docket docket = docket();
        long id = docket.enqueueWorkflow(Workflow.builder("nightly export")
                .step("dump", "dump", null).step("upload", "upload", null, "dump").build()).id();

        Run shown = cli("workflow", "show", Long.toString(id));
        assertOk(shown);
        assertThat(shown.out()).startsWith("workflow " + id + " 'nightly export': running");
        assertThat(shown.out()).contains("dump").contains("ready").contains("upload").contains("waiting");

        Run cancelled = cli("workflow", "cancel", Long.toString(id));
        assertOk(cancelled);
        assertThat(cancelled.out()).contains("cancelled 2 step(s)");
        assertThat(docket.admin().workflow(id).orElseThrow().status()).isEqualTo(WorkflowInfo.Status.CANCELLED);

        Run retried = cli("workflow", "retry", Long.toString(id));
        assertOk(retried);
        assertThat(retried.out()).contains("re-ran 2 step(s)");
        assertThat(docket.admin().workflow(id).orElseThrow().status()).isEqualTo(WorkflowInfo.Status.RUNNING);
    }

    @Test
    void badIdsAreUsageErrorsAndUnknownOnesFail() {
        docket();
        assertFails(cli("workflow", "show", "abc"), 2, "ID");
        assertFails(cli("workflow", "show", "0"), 2, "positive whole number");
        assertFails(cli("workflow", "retry", "-4"), 2, "");
        assertFails(CliRunner.run(env, "workflow"), 2, "give a subcommand");
        assertFails(cli("workflow", "show", "424242"), 1, "no workflow 424242");
    }
}
