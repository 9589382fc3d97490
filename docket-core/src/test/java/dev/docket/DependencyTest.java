package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Jobs that depend on jobs: {@link JobOptions.Builder#dependsOn} and {@link DependencyMode}. */
class DependencyTest extends DocketTest {

    record Step(String name) {
    }

    record Total(long cents) {
    }

    private static JobOptions after(long... ids) {
        return JobOptions.builder().dependsOn(ids).build();
    }

    private static JobOptions after(DependencyMode mode, long... ids) {
        return JobOptions.builder().dependsOn(ids).dependencyMode(mode).build();
    }

    private JobState state(Docket docket, long id) {
        return docket.job(id).orElseThrow().state();
    }

    /** A -> B, C -> D: B and C run at the same time (each waits to see the other start), D after both. */
    @Test
    void aDiamondRunsInOrderWithTheMiddleInParallel() throws Exception {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"), after(a));
        long c = docket.enqueue("step", new Step("C"), after(a));
        long d = docket.enqueue("step", new Step("D"), after(b, c));
        assertThat(state(docket, b)).isEqualTo(JobState.WAITING);
        assertThat(state(docket, d)).isEqualTo(JobState.WAITING);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'ready'")).as("only A is claimable").isEqualTo(1);

        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        CountDownLatch middle = new CountDownLatch(2);
        CountDownLatch done = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 4).handler("step", Step.class, (s, ctx) -> {
            events.add("start " + s.name());
            if (!s.name().equals("A") && !s.name().equals("D")) {
                middle.countDown();
                assertThat(middle.await(20, TimeUnit.SECONDS)).as("B and C run together").isTrue();
            }
            events.add("end " + s.name());
            if (s.name().equals("D")) {
                done.countDown();
            }
        }));

        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        List<String> order = List.copyOf(events);
        assertThat(order.getFirst()).isEqualTo("start A");
        assertThat(order.get(1)).isEqualTo("end A");
        assertThat(order.subList(2, 4)).containsExactlyInAnyOrder("start B", "start C");
        assertThat(order.subList(6, 8)).containsExactly("start D", "end D");
        awaitState(docket, d, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(queryLong("SELECT count(*) FROM {s}.job_dependencies")).as("settled edges are gone").isZero();
    }

    @Test
    void explainSaysWhichDependenciesAJobWaitsFor() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"));
        long d = docket.enqueue("step", new Step("D"), after(DependencyMode.WAIT_FOR_REPLAY, a, b));
        completeInSql(a);

        JobExplanation why = docket.admin().explain(d).orElseThrow();

        assertThat(why.state()).isEqualTo(JobState.WAITING);
        JobExplanation.Reason reason = why.reasons().getFirst();
        assertThat(reason.code()).isEqualTo(JobExplanation.Code.WAITING_FOR_DEPENDENCIES);
        assertThat(reason.facts()).containsEntry("waitingFor", "1").containsEntry("dependencies", Long.toString(b))
                .containsEntry("mode", "wait");
        assertThat(reason.message()).contains(b + " (ready)");
    }

    @Test
    void dependingOnACompletedJobIsReadyAtOnce() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        completeInSql(a);

        long b = docket.enqueue("step", new Step("B"), after(a));

        assertThat(state(docket, b)).isEqualTo(JobState.READY);
    }

    @Test
    void anUnknownDependencyIsRefusedAndNothingIsInserted() throws Exception {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> docket.enqueue("step", new Step("B"), after(a, 987_654_321L)))
                .withMessageContaining("987654321").withMessageContaining("nothing was enqueued");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> docket.enqueueAll(List.of(NewJob.of("step", new Step("ok")),
                        NewJob.of("step", new Step("bad"), after(-1 + 5_000_000_000L)))));
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).as("only A").isEqualTo(1);

        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> docket.enqueue(tx, "step", new Step("B"), after(123_456_789L)));
            long b = docket.enqueue(tx, "step", new Step("B"), after(a));
            tx.commit();
            assertThat(state(docket, b)).as("the caller's transaction is still usable").isEqualTo(JobState.WAITING);
        }
    }

    @Test
    void badDependencyOptionsAreRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().dependsOn(0))
                .withMessageContaining("positive");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().dependsOn(-7))
                .withMessageContaining("-7");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().dependsOn(5, 6, 5))
                .withMessageContaining("twice");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder()
                .dependsOn(new long[JobOptions.MAX_DEPENDENCIES + 1])).withMessageContaining("at most");
        assertThatThrownBy(() -> JobOptions.builder().dependsOn((long[]) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> JobOptions.builder().dependencyMode(null)).isInstanceOf(NullPointerException.class);
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().dependsOn(5).sequenceKey("k").build())
                .withMessageContaining("sequence");
    }

    /** A dead dependency cancels its dependents, and theirs in turn, naming it. */
    @Test
    void aDeadDependencyCancelsItsDependentsWithTheReason() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"), after(a));
        long c = docket.enqueue("step", new Step("C"), after(b));
        long unrelated = docket.enqueue("step", new Step("X"));

        worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofMillis(50)).handler("step", Step.class,
                (s, ctx) -> {
                    if (s.name().equals("A")) {
                        throw new PermanentJobFailure("charge declined");
                    }
                }));

        awaitState(docket, a, JobState.DEAD, Duration.ofSeconds(20));
        JobInfo cancelledB = awaitState(docket, b, JobState.CANCELLED, Duration.ofSeconds(10));
        JobInfo cancelledC = awaitState(docket, c, JobState.CANCELLED, Duration.ofSeconds(10));
        awaitState(docket, unrelated, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(cancelledB.metadata()).contains("dependency " + a + " died");
        assertThat(cancelledC.metadata()).contains("dependency " + b + " was cancelled");
        assertThat(cancelledB.attempt()).isZero();
    }

    /** With WAIT_FOR_REPLAY a dead dependency keeps its dependents waiting; a replay that completes runs them. */
    @Test
    void withWaitForReplayDependentsRunAfterTheDeadJobIsReplayed() {
        Docket docket = docket();
        AtomicReference<Boolean> failing = new AtomicReference<>(true);
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"), after(DependencyMode.WAIT_FOR_REPLAY, a));
        long c = docket.enqueue("step", new Step("C"), after(DependencyMode.WAIT_FOR_REPLAY, b));

        worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofMillis(50)).handler("step", Step.class,
                (s, ctx) -> {
                    if (s.name().equals("A") && failing.get()) {
                        throw new PermanentJobFailure("not yet");
                    }
                }));
        awaitState(docket, a, JobState.DEAD, Duration.ofSeconds(20));
        assertThat(state(docket, b)).isEqualTo(JobState.WAITING);
        assertThat(state(docket, c)).isEqualTo(JobState.WAITING);

        failing.set(false);
        assertThat(docket.admin().replayDead(List.of(a))).containsExactly(a);

        awaitState(docket, c, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(state(docket, a)).isEqualTo(JobState.COMPLETED);
        assertThat(state(docket, b)).isEqualTo(JobState.COMPLETED);
    }

    /** A dead job that leaves the dead-letter table unreplayed (retention) cancels what waits for its replay. */
    @Test
    void aDeadDependencyThatExpiresCancelsTheJobsWaitingForItsReplay() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"), JobOptions.builder().maxAttempts(1).build());
        long b = docket.enqueue("step", new Step("B"), after(DependencyMode.WAIT_FOR_REPLAY, a));
        worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofMillis(50)).handler("step", Step.class,
                (s, ctx) -> {
                    throw new IllegalStateException("down");
                }));
        awaitState(docket, a, JobState.DEAD, Duration.ofSeconds(20));
        assertThat(state(docket, b)).isEqualTo(JobState.WAITING);

        execute("DELETE FROM {s}.dead_jobs WHERE id = " + a);

        assertThat(state(docket, b)).isEqualTo(JobState.CANCELLED);
        assertThat(docket.job(b).orElseThrow().metadata()).contains("left the dead-letter table without a replay");
        assertThat(queryLong("SELECT count(*) FROM {s}.job_dependencies")).isZero();
    }

    @Test
    void aCancelledDependencyCancelsDependentsAndACancelledWaitingJobLeavesNoWork() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"), after(a));
        long c = docket.enqueue("step", new Step("C"), after(DependencyMode.WAIT_FOR_REPLAY, a));

        assertThat(docket.cancel(a)).isTrue();

        assertThat(state(docket, b)).isEqualTo(JobState.CANCELLED);
        assertThat(state(docket, c)).as("a cancelled job cannot come back").isEqualTo(JobState.CANCELLED);
        assertThat(docket.job(b).orElseThrow().metadata()).contains("dependency " + a + " was cancelled");
    }

    @Test
    void aJobWithAFutureRunAtIsScheduledWhenItsDependencyCompletes() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"),
                JobOptions.builder().dependsOn(a).delay(Duration.ofHours(1)).build());
        assertThat(state(docket, b)).isEqualTo(JobState.WAITING);

        completeInSql(a);

        assertThat(state(docket, b)).isEqualTo(JobState.SCHEDULED);
    }

    /** Completions counted down under the dependent's row lock: two at once in two transactions lose nothing. */
    @Test
    void twoDependenciesCompletingAtOnceMakeTheJobReady() throws Exception {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"));
        long d = docket.enqueue("step", new Step("D"), after(a, b));
        try (Connection first = dataSource().getConnection(); Connection second = dataSource().getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            completeInSql(first, a);
            CompletableFuture<Void> other = CompletableFuture.runAsync(() -> completeInSql(second, b));
            first.commit();
            other.get(20, TimeUnit.SECONDS);
            second.commit();
        }
        assertThat(state(docket, d)).isEqualTo(JobState.READY);
    }

    /** An enqueue that depends on a job whose completion is in flight waits for it, and sees it completed. */
    @Test
    void enqueueRacingTheCompletionOfItsDependencyLosesNoWakeUp() throws Exception {
        Docket docket = docket();
        long a = docket.enqueue("step", new Step("A"));
        long b = docket.enqueue("step", new Step("B"));

        // The completion first: the enqueue waits for its commit and finds the job in the history.
        long afterA;
        try (Connection completing = dataSource().getConnection()) {
            completing.setAutoCommit(false);
            completeInSql(completing, a);
            CompletableFuture<Long> enqueue = CompletableFuture.supplyAsync(
                    () -> docket.enqueue("step", new Step("after A"), after(a)));
            assertThat(enqueue).isNotDone();
            completing.commit();
            afterA = enqueue.get(20, TimeUnit.SECONDS);
        }
        assertThat(state(docket, afterA)).isEqualTo(JobState.READY);

        // The enqueue first: the completion waits for its commit, and its trigger sees the new edge.
        long afterB;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            afterB = docket.enqueue(tx, "step", new Step("after B"), after(b));
            CompletableFuture<Void> completion = CompletableFuture.runAsync(() -> completeInSql(b));
            assertThat(completion).isNotDone();
            tx.commit();
            completion.get(20, TimeUnit.SECONDS);
        }
        assertThat(state(docket, afterB)).isEqualTo(JobState.READY);
    }

    @Test
    void aDependentReadsTheOutputItsDependencyRecorded() throws Exception {
        Docket docket = docket();
        long a = docket.enqueue("price", new Step("A"));
        long b = docket.enqueue("bill", new Step("B"), after(a));
        AtomicReference<Optional<Total>> seen = new AtomicReference<>();
        CountDownLatch billed = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofMillis(50))
                .handler("price", Step.class, (s, ctx) -> ctx.recordOutput(new Total(4200)))
                .handler("bill", Step.class, (s, ctx) -> {
                    seen.set(ctx.output(a, Total.class));
                    assertThat(ctx.output(ctx.jobId(), Total.class)).as("not completed yet").isEmpty();
                    billed.countDown();
                }));

        assertThat(billed.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get()).contains(new Total(4200));
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id = ? AND output->>'cents' = '4200'", a))
                .as("kept with the job's history").isEqualTo(1);
    }

    @Test
    void anOversizedOutputIsRefusedAndTheAttemptFails() throws Exception {
        Docket docket = docket(b -> b.maxPayloadBytes(1024));
        long a = docket.enqueue("big", new Step("A"), JobOptions.builder().maxAttempts(1).build());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofMillis(50))
                .handler("big", Step.class, (s, ctx) -> {
                    try {
                        ctx.recordOutput("x".repeat(5000));
                    } catch (IllegalArgumentException e) {
                        thrown.set(e);
                        throw e;
                    }
                }));

        JobInfo dead = awaitState(docket, a, JobState.DEAD, Duration.ofSeconds(20));
        assertThat(thrown.get()).hasMessageStartingWith("output is").hasMessageContaining("over the limit");
        assertThat(dead.errors().getLast().message()).doesNotContain("xxxxxxxx");
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = ? AND output IS NULL", a)).isEqualTo(1);
    }

    private void completeInSql(long id) {
        try (Connection c = dataSource().getConnection()) {
            completeInSql(c, id);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the completer's history path does to a job, on {@code c}. */
    private void completeInSql(Connection c, long id) {
        try (Statement st = c.createStatement()) {
            st.execute("""
                    WITH done AS (DELETE FROM %1$s.jobs WHERE id = %2$d RETURNING *)
                    INSERT INTO %1$s.job_history (id, queue, kind, payload, payload_version, priority, run_at, attempt,
                                                  max_attempts, tenant, unique_key, metadata, errors, created_at,
                                                  attempted_at, output, state)
                    SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts, tenant,
                           unique_key, metadata, errors, created_at, attempted_at, output, 'completed' FROM done
                    """.formatted(schema, id));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
