package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.docket.internal.rules.CronRules;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** How a PeriodicJob reads its name and cron expression, without a database. */
class PeriodicJobTest {

    @Test
    void fiveFieldsAreCrontabAndSixPutSecondsFirst() {
        PeriodicJob nightly = PeriodicJob.of("nightly", "0 3 * * *", "report", null);
        assertThat(nightly.zone()).isEqualTo(ZoneId.of("UTC"));
        assertThat(nightly.options()).isEqualTo(JobOptions.defaults());
        ZonedDateTime from = ZonedDateTime.parse("2026-03-01T10:00:07Z");
        assertThat(CronRules.executionTime(nightly.cron()).nextExecution(from))
                .contains(ZonedDateTime.parse("2026-03-02T03:00:00Z"));

        PeriodicJob everyTen = PeriodicJob.of("every-10s", "  */10 * * * * *  ", "tick", null);
        assertThat(CronRules.executionTime(everyTen.cron()).nextExecution(from))
                .contains(ZonedDateTime.parse("2026-03-01T10:00:10Z"));
    }

    @Test
    void badExpressionsSayWhatIsWrong() {
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", null, "k", null))
                .withMessage("cron expression must not be empty");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "   ", "k", null))
                .withMessage("cron expression must not be empty");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "* * * *", "k", null))
                .withMessageContaining("5 fields").withMessageContaining("had 4");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "* * * * * * *", "k", null))
                .withMessageContaining("had 7");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "61 * * * *", "k", null))
                .withMessageStartingWith("invalid cron expression '61 * * * *': ");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "0 0 25 * * *", "k", null))
                .withMessageStartingWith("invalid cron expression");
    }

    @Test
    void namesAreShortIdentifiers() {
        assertThat(PeriodicJob.of("a-Z_0.9:x", "* * * * *", "k", null).name()).isEqualTo("a-Z_0.9:x");
        assertThat(PeriodicJob.of("n".repeat(128), "* * * * *", "k", null).name()).hasSize(128);
        for (String bad : new String[] {null, "", "n".repeat(129), "bad name", "naïve"}) {
            assertThatIllegalArgumentException().as("%s", bad).isThrownBy(() -> PeriodicJob.of(bad, "* * * * *", "k", null))
                    .withMessageContaining("periodic job name");
        }
    }

    @Test
    void zoneOptionsAndKindAreRequired() {
        assertThatNullPointerException().isThrownBy(() -> new PeriodicJob("x", "* * * * *", null, "k", null,
                JobOptions.defaults())).withMessage("zone");
        assertThatNullPointerException().isThrownBy(() -> new PeriodicJob("x", "* * * * *", ZoneId.of("UTC"), "k", null,
                null)).withMessage("options");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "* * * * *", "", null));
    }
}
