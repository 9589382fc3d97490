package dev.docket.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The proof of transactional handlers under failure, with real processes: 10,000 jobs, each adding one
 * to its own counter row in its handler's transaction, run by worker JVMs that are SIGKILLed every few
 * seconds and one SIGSTOPped for longer than its lease (its handlers stay inside their transactions
 * while the rescuer hands their jobs to other workers; when it resumes, they reach their commits). At
 * the end every counter equals exactly 1, and the resumed worker's attempts were fenced out at commit,
 * as its log shows.
 */
@Tag("load")
class TransactionalExactlyOnceTest {

    private static final int JOBS = 10_000;

    @Test
    @Timeout(170)
    void everyCounterIsExactlyOneAfterKillsAndAStallPastTheLease() throws Exception {
        ChaosOptions options = ChaosOptions.parse(new String[] {
                "--jobs", Integer.toString(JOBS), "--tx-share", "100", "--signal-share", "0", "--workers", "3", "--concurrency", "8",
                "--duration", "16", "--kill-every", "3", "--lease", "2", "--poison", "0", "--no-disruption",
                "--timeout", "80"});
        ChaosHarness harness = new ChaosHarness(options);

        boolean passed = harness.run();

        ChaosReport report = harness.report();
        assertThat(report).as("the run got to its checks").isNotNull();
        assertThat(report.transactionalCompleted).as("every job completed").isEqualTo(JOBS);
        assertThat(report.countersWrong).as("counters not exactly 1").isZero();
        assertThat(report.kills).as("workers SIGKILLed").isPositive();
        assertThat(report.fencedOut).as("attempts fenced out at their commit").isPositive();
        assertThat(passed).as("every check of the chaos report (see the output)").isTrue();
    }
}
