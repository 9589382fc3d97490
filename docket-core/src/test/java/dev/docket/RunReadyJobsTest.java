package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@link Worker.Builder#runReadyJobs()}: a test's jobs run on its own thread, through the worker's claim and outcome writes. */
class RunReadyJobsTest extends DocketTest {

    record Task(String name) {
    }

    @Test
    void runsEveryReadyJobOnTheCallingThreadInClaimOrderAndReportsTheOutcomes() {
        Docket docket = docket();
        List<String> ran = new CopyOnWriteArrayList<>();
        Thread caller = Thread.currentThread();
        long second = docket.enqueue("task", new Task("second"));
        long first = docket.enqueue("task", new Task("first"), JobOptions.builder().priority(-1).build());
        long failing = docket.enqueue("task", new Task("fail"), JobOptions.builder().priority(1).build());

        List<JobRun> runs = docket.worker().queue("default", 1).handler("task", Task.class, (t, ctx) -> {
            assertThat(Thread.currentThread()).isSameAs(caller);
            ran.add(t.name());
            if (t.name().equals("fail")) {
                throw new IllegalStateException("boom");
            }
        }).runReadyJobs();

        assertThat(ran).containsExactly("first", "second", "fail");
        assertThat(runs).extracting(JobRun::jobId).containsExactly(first, second, failing);
        assertThat(runs).extracting(JobRun::result).containsExactly(JobRun.Result.COMPLETED, JobRun.Result.COMPLETED,
                JobRun.Result.RETRYING);
        assertThat(runs.get(2).attempt()).isEqualTo(1);
        assertThat(runs.get(2).error()).contains("boom");
        assertThat(docket.job(first).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        JobInfo retried = docket.job(failing).orElseThrow();
        assertThat(retried.state()).as("the retry waits out its backoff").isEqualTo(JobState.SCHEDULED);
        assertThat(retried.attempt()).isEqualTo(1);
    }

    @Test
    void jobsTheHandlersEnqueueRunInTheSameCall() {
        Docket docket = docket();
        docket.enqueue("parent", new Task("p"));
        List<JobRun> runs = docket.worker().queue("default", 1)
                .handler("parent", Task.class, (t, ctx) -> docket.enqueue("child", new Task("c")))
                .handler("child", Task.class, (t, ctx) -> { })
                .runReadyJobs();
        assertThat(runs).extracting(JobRun::kind).containsExactly("parent", "child");
        assertThat(runs).allMatch(JobRun::completed);
    }

    @Test
    void onlyTheBuildersQueuesRunAndPermanentFailuresAreDead() {
        Docket docket = docket();
        long other = docket.enqueue("task", new Task("x"), JobOptions.builder().queue("other").build());
        long dead = docket.enqueue("task", new Task("x"));
        List<JobRun> runs = docket.worker().queue("default", 1).handler("task", Task.class, (t, ctx) -> {
            throw new PermanentJobFailure("never");
        }).runReadyJobs();
        assertThat(runs).singleElement().satisfies(r -> {
            assertThat(r.jobId()).isEqualTo(dead);
            assertThat(r.result()).isEqualTo(JobRun.Result.DEAD);
        });
        assertThat(docket.job(dead).orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(docket.job(other).orElseThrow().state()).isEqualTo(JobState.READY);
    }

    @Test
    void scheduledJobsRunOnlyOnceMadeDueWithinTheHorizon() {
        Docket docket = docket();
        long soon = docket.enqueue("task", new Task("soon"), JobOptions.builder().delay(Duration.ofMinutes(5)).build());
        long later = docket.enqueue("task", new Task("later"), JobOptions.builder().delay(Duration.ofDays(2)).build());
        Worker.Builder worker = docket.worker().queue("default", 1).handler("task", Task.class, (t, ctx) -> { });

        assertThat(worker.runReadyJobs()).isEmpty();
        assertThat(worker.runJobsDueWithin(Duration.ofHours(1))).extracting(JobRun::jobId).containsExactly(soon);
        assertThat(docket.job(later).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
        assertThat(worker.runJobsDueWithin(Duration.ofDays(3))).extracting(JobRun::jobId).containsExactly(later);
    }

    @Test
    void aRetryScheduledByTheCallIsNotMadeDueAgainByIt() {
        Docket docket = docket();
        docket.enqueue("task", new Task("x"));
        List<JobRun> runs = docket.worker().queue("default", 1).handler("task", Task.class, (t, ctx) -> {
            throw new IllegalStateException("again");
        }).runJobsDueWithin(Duration.ofDays(1));
        assertThat(runs).extracting(JobRun::result).containsExactly(JobRun.Result.RETRYING);
    }

    @Test
    void refusesABuilderWithoutQueueOrHandlerAndANegativeHorizon() {
        Docket docket = docket();
        assertThatThrownBy(() -> docket.worker().handler("task", Task.class, (t, ctx) -> { }).runReadyJobs())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("queue");
        assertThatThrownBy(() -> docket.worker().queue("default", 1).runReadyJobs())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("handler");
        Worker.Builder worker = docket.worker().queue("default", 1).handler("task", Task.class, (t, ctx) -> { });
        assertThatThrownBy(() -> worker.runJobsDueWithin(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("horizon must not be negative");
        assertThatThrownBy(() -> worker.runJobsDueWithin(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @FreshSchema
    void refusesToRunOnASchemaThatIsNotMigrated() {
        Docket docket = Docket.builder(dataSource()).schema(schema).build();
        assertThatThrownBy(() -> docket.worker().queue("default", 1).handler("task", Task.class, (t, ctx) -> { })
                .runReadyJobs()).isInstanceOf(DocketException.class).hasMessageContaining("migrate");
    }
}
