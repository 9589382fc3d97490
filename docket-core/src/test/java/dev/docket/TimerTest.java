package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Timers: {@link JobOptions.Builder#delayAfterDependencies}, a job that runs a while after its dependencies. */
class TimerTest extends DocketTest {

    record Step(String name) {
    }

    private static JobOptions threeDaysAfter(long... ids) {
        return JobOptions.builder().dependsOn(ids).delayAfterDependencies(Duration.ofDays(3)).build();
    }

    @Test
    void aJobRunsItsDelayAfterItsLastDependencyCompletesWithoutAWorkerMeanwhile() {
        Docket docket = docket();
        long signup = docket.enqueue("step", new Step("signup"));
        long reminder = docket.enqueue("step", new Step("reminder"), threeDaysAfter(signup));
        Worker.Builder runner = docket.worker().queue("default", 1).handler("step", Step.class, (s, ctx) -> { });

        assertThat(runner.runReadyJobs()).extracting(JobRun::jobId).containsExactly(signup);
        JobInfo done = docket.job(signup).orElseThrow();
        JobInfo waiting = docket.job(reminder).orElseThrow();
        assertThat(waiting.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(Duration.between(done.finishedAt(), waiting.runAt()))
                .as("three days from the completion, by the database clock").isBetween(Duration.ofDays(3),
                        Duration.ofDays(3).plusSeconds(5));
        assertThat(runner.runJobsDueWithin(Duration.ofDays(2))).as("not due in two days").isEmpty();
        assertThat(runner.runJobsDueWithin(Duration.ofDays(4))).extracting(JobRun::jobId).containsExactly(reminder);
    }

    @Test
    void aTimerWhoseDependenciesCompletedBeforeTheEnqueueCountsFromTheEnqueue() {
        Docket docket = docket();
        long signup = docket.enqueue("step", new Step("signup"));
        docket.worker().queue("default", 1).handler("step", Step.class, (s, ctx) -> { }).runReadyJobs();

        long reminder = docket.enqueue("step", new Step("reminder"), threeDaysAfter(signup));

        JobInfo scheduled = docket.job(reminder).orElseThrow();
        assertThat(scheduled.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(Duration.between(scheduled.createdAt(), scheduled.runAt()))
                .isBetween(Duration.ofDays(3), Duration.ofDays(3).plusSeconds(5));
    }

    @Test
    void aTimerAndASignalBothHoldTheJob() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("a"));
        long b = docket.enqueue("step", new Step("b"), JobOptions.builder().dependsOn(a)
                .delayAfterDependencies(Duration.ofHours(1)).awaitSignal("approved").build());
        Worker.Builder runner = docket.worker().queue("default", 1).handler("step", Step.class, (s, ctx) -> { });
        runner.runReadyJobs();
        assertThat(docket.job(b).orElseThrow().state()).as("its signal has not come").isEqualTo(JobState.WAITING);

        docket.signal(b, "approved", null);

        JobInfo scheduled = docket.job(b).orElseThrow();
        assertThat(scheduled.state()).as("its hour after the dependency has not passed").isEqualTo(JobState.SCHEDULED);
        assertThat(runner.runJobsDueWithin(Duration.ofHours(2))).extracting(JobRun::jobId).containsExactly(b);
    }

    @Test
    void aTimerNeedsDependenciesAndARangeOfOneMillisecondToAHundredYears() {
        assertThatIllegalArgumentException().isThrownBy(() ->
                JobOptions.builder().delayAfterDependencies(Duration.ofHours(1)).build())
                .withMessageContaining("needs dependsOn");
        for (Duration bad : List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999),
                Duration.ofDays(365 * 101), Duration.ofSeconds(Long.MAX_VALUE))) {
            assertThatIllegalArgumentException().as("%s", bad).isThrownBy(() ->
                    JobOptions.builder().delayAfterDependencies(bad)).withMessageContaining("1ms to 100 years");
        }
        JobOptions options = threeDaysAfter(1);
        assertThat(options.delayAfterDependencies()).isEqualTo(Duration.ofDays(3));
        assertThat(options.toString()).contains("delayAfterDependencies=PT72H");
    }
}
