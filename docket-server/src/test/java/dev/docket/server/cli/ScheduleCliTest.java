package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static dev.docket.server.cli.CliTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.ScheduleDefinition;
import dev.docket.ScheduleInfo;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** {@code docket schedule list|create|edit|pause|resume|delete}, in-process against the test database. */
class ScheduleCliTest extends DocketTest {

    private Run cli(String... args) {
        return CliRunner.against(db.jdbcUrl(), schema, args);
    }

    @Test
    void createListEditPauseResumeDelete() {
        Docket docket = docket();
        Run created = cli("schedule", "create", "nightly", "--cron", "0 3 * * *", "--zone", "Europe/Berlin", "--kind", "report",
                "--payload", "{\"format\":\"pdf\"}", "--queue", "reports", "--priority", "4", "--max-attempts", "3",
                "--catch-up", "latest", "--by", "ada");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.out()).contains("created schedule nightly: 0 3 * * * (Europe/Berlin), kind report");
        assertThat(created.err()).as("a kind no live worker serves is accepted with a warning")
                .contains("warning: no live worker serves kind report");
        ScheduleInfo s = docket.admin().schedule("nightly").orElseThrow();
        assertThat(s.zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(s.queue()).isEqualTo("reports");
        assertThat(s.priority()).isEqualTo(4);
        assertThat(s.maxAttempts()).isEqualTo(3);
        assertThat(s.catchUp()).isEqualTo(ScheduleDefinition.CatchUp.LATEST);
        assertThat(s.createdBy()).isEqualTo("ada (cli)");

        execute("INSERT INTO {s}.schedules (name, origin, cron, zone, kind, created_by, updated_by) "
                + "VALUES ('from-code', 'code', '*/10 * * * * *', 'UTC', 'tick', 'code', 'code')");
        Run list = cli("schedule", "list");
        assertOk(list);
        assertThat(list.out()).contains("NAME").contains("ORIGIN").contains("nightly").contains("runtime")
                .contains("from-code").contains("code").contains("Europe/Berlin").contains("ada (cli)");

        Run edited = cli("schedule", "edit", "nightly", "--cron", "30 4 * * *", "--by", "grace");
        assertThat(edited.exit()).as(edited.err()).isZero();
        ScheduleInfo e = docket.admin().schedule("nightly").orElseThrow();
        assertThat(e.cron()).isEqualTo("30 4 * * *");
        assertThat(e.zone()).as("what is not given stays").isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(e.payloadJson()).contains("pdf");
        assertThat(e.queue()).isEqualTo("reports");
        assertThat(e.updatedBy()).isEqualTo("grace (cli)");

        assertThat(cli("schedule", "pause", "nightly").exit()).isZero();
        assertThat(docket.admin().schedule("nightly").orElseThrow().paused()).isTrue();
        assertThat(docket.admin().schedule("nightly").orElseThrow().updatedBy())
                .isEqualTo(System.getProperty("user.name") + " (cli)");
        assertThat(cli("schedule", "list").out()).contains("paused");
        assertThat(cli("schedule", "resume", "nightly", "--by", "ada").exit()).isZero();
        assertThat(docket.admin().schedule("nightly").orElseThrow().paused()).isFalse();

        assertFails(cli("schedule", "edit", "from-code", "--cron", "* * * * *"), 1, "declared in code");
        assertFails(cli("schedule", "pause", "from-code"), 1, "declared in code");
        assertFails(cli("schedule", "delete", "from-code"), 1, "declared in code");
        assertFails(cli("schedule", "create", "nightly", "--cron", "* * * * *", "--kind", "k"), 1, "already exists");

        assertOk(cli("schedule", "delete", "nightly", "--by", "ada"));
        assertFails(cli("schedule", "delete", "nightly"), 1, "no schedule named nightly");
        assertFails(cli("schedule", "pause", "nightly"), 1, "no schedule named nightly");
        assertFails(cli("schedule", "edit", "nightly", "--cron", "* * * * *"), 1, "no schedule named nightly");
        assertThat(docket.admin().schedules()).extracting(ScheduleInfo::name).containsExactly("from-code");
    }

    @Test
    void malformedFlagsAndHostileInputFailClearlyAndWriteNothing() {
        Docket docket = docket();
        assertFails(CliRunner.run(java.util.Map.of(), "schedule"), 2, "give a subcommand");
        assertFails(cli("schedule", "create", "x", "--kind", "k"), 2, "missing");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *"), 2, "missing");
        assertFails(cli("schedule", "create", "x", "--cron", "not a cron", "--kind", "k"), 2, "cron");
        assertFails(cli("schedule", "create", "x", "--cron", "61 * * * *", "--kind", "k"), 2, "invalid cron");
        assertFails(cli("schedule", "create", "x", "--cron", "0 0 31 2 *", "--kind", "k"), 2, "never fires");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--zone", "Mars/Base"), 2,
                "unknown time zone 'Mars/Base'");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--priority", "40000"), 2,
                "must be a whole number from -32768 to 32767");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--max-attempts", "zero"), 2,
                "whole number");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--catch-up", "some"), 2,
                "catch-up");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--payload", "{nope"), 2,
                "not valid JSON");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--payload", "{\"a\":1,\"a\":2}"), 2,
                "twice");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--payload",
                "{\"a\":\"" + "x".repeat(300 * 1024) + "\"}"), 2, "over the limit");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--payload", "@/nonexistent/file"), 2,
                "cannot read");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--queue", "bad queue"), 2, "queue");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--by", "a\u0007b"), 2,
                "changedBy");
        assertFails(cli("schedule", "create", "bad name", "--cron", "* * * * *", "--kind", "k"), 2, "schedule name must be");
        assertFails(cli("schedule", "create", "x';DROP TABLE jobs;--", "--cron", "* * * * *", "--kind", "k"), 2,
                "schedule name must be");
        assertFails(cli("schedule", "create", "n".repeat(300), "--cron", "* * * * *", "--kind", "k"), 2,
                "schedule name must be");
        assertFails(cli("schedule", "create", "x", "--cron", "* * * * *", "--kind", "k", "--bogus"), 2, "--bogus");
        assertFails(cli("schedule", "pause"), 2, "missing");
        assertFails(cli("schedule", "pause", "a b"), 2, "schedule name must be");
        assertThat(docket.admin().schedules()).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM {s}.cron_slots")).isZero();
    }
}
