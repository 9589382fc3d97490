package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static dev.docket.server.cli.CliTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.RateLimit;
import dev.docket.RateLimitSettings;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code docket rate-limit list|set|remove}, in-process against the test database. */
class RateLimitCliTest extends DocketTest {

    record Task(int n) {
    }

    private Run cli(String... args) {
        return CliRunner.against(db.jdbcUrl(), schema, args);
    }

    @Test
    void setListRemove() {
        Docket docket = docket();
        docket.enqueue("send email", new Task(1));

        assertOk(cli("rate-limit", "set", "--kind", "send email", "--permits", "50", "--period", "1s"));
        assertOk(cli("rate-limit", "set", "--queue", "default", "--permits", "600", "--period", "1m", "--per-tenant"));
        assertOk(cli("rate-limit", "set", "--kind", "future", "--permits", "1", "--period", "PT0.5S", "--create"));
        assertThat(docket.admin().rateLimits()).extracting(RateLimitSettings::limit).containsExactly(
                RateLimit.ofKind("future", 1, Duration.ofMillis(500)),
                RateLimit.ofKind("send email", 50, Duration.ofSeconds(1)),
                RateLimit.ofQueue("default", 600, Duration.ofMinutes(1)).perTenantBudgets());
        Run list = cli("rate-limit", "list");
        assertOk(list);
        assertThat(list.out()).contains("send email").contains("50").contains("1s").contains("600").contains("1m")
                .contains("edited").contains("yes");

        assertOk(cli("rate-limit", "remove", "--kind", "send email"));
        assertFails(cli("rate-limit", "remove", "--kind", "send email"), 1, "no rate limit on kind send email");
        assertThat(docket.admin().rateLimits()).hasSize(2);
    }

    @Test
    void refusesBadInputAndChangesNothing() {
        Docket docket = docket();
        docket.enqueue("k", new Task(1));
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "0", "--period", "1s"), 2, "--permits': must be a whole number from 1 to 1000000");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "-1", "--period", "1s"), 2, "permits");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "1000001", "--period", "1s"), 2, "permits");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "99999999999", "--period", "1s"), 2, "permits");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "5", "--period", "0s"), 2, "period must be between");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "5", "--period", "-PT1S"), 2, "period");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "5", "--period", "8d"), 2, "period");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "5", "--period", "fast"), 2, "a duration must look like");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--permits", "5"), 2, "missing");
        assertFails(cli("rate-limit", "set", "--kind", "k", "--queue", "q", "--permits", "5", "--period", "1s"), 2,
                "mutually exclusive");
        assertFails(cli("rate-limit", "set", "--kind", "a\u0007b", "--permits", "5", "--period", "1s"), 2, "kind");
        assertFails(cli("rate-limit", "set", "--kind", "a\u202Eb", "--permits", "5", "--period", "1s"), 2, "kind");
        assertFails(cli("rate-limit", "set", "--queue", "bad queue!", "--permits", "5", "--period", "1s"), 2, "queue");
        assertFails(cli("rate-limit", "set", "--kind", "unknwon", "--permits", "5", "--period", "1s"), 1,
                "no kind unknwon is known");
        assertFails(cli("rate-limit", "set", "--queue", "nowhere", "--permits", "5", "--period", "1s"), 1,
                "no queue nowhere is known");
        assertFails(cli("rate-limit", "remove", "--queue", "bad queue!"), 2, "queue");
        assertFails(CliRunner.run(Map.of(), "rate-limit"), 2, "give a subcommand");
        assertThat(docket.admin().rateLimits()).isEmpty();
    }
}
