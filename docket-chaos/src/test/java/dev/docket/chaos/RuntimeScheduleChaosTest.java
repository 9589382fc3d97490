package dev.docket.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A periodic job stored at run time (issue 28), with real processes: the classic run stores one firing every
 * second beside the code-declared tick, SIGKILLs a random worker every few seconds and the maintenance leader
 * itself twice. The stored schedule's slots are enqueued once each, with none missed between the first and the
 * last, however leadership moved.
 */
class RuntimeScheduleChaosTest {

    @Test
    @Timeout(240)
    void aRunTimeScheduleFiresOncePerSlotAcrossTwoLeaderKills() throws Exception {
        ChaosOptions options = ChaosOptions.parse(new String[] {
                "--jobs", "1500", "--tx-share", "0", "--signal-share", "0", "--workers", "3", "--concurrency", "8",
                "--duration", "20", "--kill-every", "4", "--lease", "2", "--poison", "0", "--timeout", "120"});
        ChaosHarness harness = new ChaosHarness(options);

        harness.run();

        ChaosReport report = harness.report();
        assertThat(report).as("the run got to its checks").isNotNull();
        assertThat(report.figuresOk("runtime schedule:", 3)).as("the run-time schedule's checks (see the output)").isTrue();
        assertThat(report.figuresOk("cron ticks completed, duplicate slots", 1)).as("the code-declared tick").isTrue();
        assertThat(report.lost).as("jobs lost").isZero();
        assertThat(report.doubleCompletions).as("jobs completed twice").isZero();
    }
}
