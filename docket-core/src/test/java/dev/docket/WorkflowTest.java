package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** {@link Workflow}: a named graph of jobs enqueued as one unit, viewed, cancelled and retried. */
class WorkflowTest extends DocketTest {

    record Order(int id) {
    }

    private static Workflow order(int id) {
        return Workflow.builder("order " + id)
                .step("charge", "charge", new Order(id))
                .step("ship", "ship", new Order(id), "charge")
                .step("invoice", "invoice", new Order(id), "charge")
                .step("email", "email", new Order(id), "ship", "invoice")
                .build();
    }

    private static Map<String, WorkflowInfo.Step> steps(WorkflowInfo info) {
        return info.steps().stream().collect(Collectors.toMap(WorkflowInfo.Step::name, Function.identity()));
    }

    private WorkflowInfo awaitStatus(Docket docket, long id, WorkflowInfo.Status status) {
        return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> docket.admin().workflow(id).orElseThrow(), w -> w.status() == status);
    }

    @Test
    void aWorkflowRunsItsStepsInOrderAndShowsTheirStates() {
        Docket docket = docket();
        long id = docket.enqueueWorkflow(order(1)).id();

        WorkflowInfo before = docket.admin().workflow(id).orElseThrow();
        assertThat(before.name()).isEqualTo("order 1");
        assertThat(before.status()).isEqualTo(WorkflowInfo.Status.RUNNING);
        assertThat(before.steps()).extracting(WorkflowInfo.Step::name).first().isEqualTo("charge");
        Map<String, WorkflowInfo.Step> s = steps(before);
        assertThat(s.get("charge").state()).isEqualTo(JobState.READY);
        assertThat(s.get("ship").state()).isEqualTo(JobState.WAITING);
        assertThat(s.get("email").after()).containsExactly("ship", "invoice");
        assertThat(docket.job(s.get("email").jobId()).orElseThrow().metadata())
                .contains("\"docket.workflow\": \"" + id + "\"").contains("\"docket.step\": \"email\"");

        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 4).pollInterval(Duration.ofMillis(50))
                .handler("charge", Order.class, (o, ctx) -> ran.add("charge"))
                .handler("ship", Order.class, (o, ctx) -> ran.add("ship"))
                .handler("invoice", Order.class, (o, ctx) -> ran.add("invoice"))
                .handler("email", Order.class, (o, ctx) -> ran.add("email")));

        WorkflowInfo done = awaitStatus(docket, id, WorkflowInfo.Status.COMPLETED);
        assertThat(done.steps()).allMatch(step -> step.state() == JobState.COMPLETED);
        assertThat(ran.getFirst()).isEqualTo("charge");
        assertThat(ran.getLast()).isEqualTo("email");
        assertThat(ran).hasSize(4);
    }

    @Test
    void aWorkflowEnqueuedInARolledBackTransactionDoesNotExist() throws Exception {
        Docket docket = docket();
        long id;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            id = docket.enqueueWorkflow(tx, order(2)).id();
            assertThat(tx.isClosed()).isFalse();
            assertThat(tx.getAutoCommit()).isFalse();
            tx.rollback();
        }
        assertThat(docket.admin().workflow(id)).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.workflow_steps")).isZero();

        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            id = docket.enqueueWorkflow(tx, order(3)).id();
            tx.commit();
        }
        assertThat(docket.admin().workflow(id).orElseThrow().steps()).hasSize(4);
    }

    @Test
    void badGraphsAndNamesAreRefusedAtBuildTime() {
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("loop")
                        .step("a", "k", null, "c").step("b", "k", null, "a").step("c", "k", null, "b")
                        .step("d", "k", null).build())
                .withMessageContaining("cycle").withMessageContaining("a -> c -> b -> a");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("self").step("a", "k", null, "a").build())
                .withMessageContaining("a -> a");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").step("a", "k", null, "nope").build())
                .withMessageContaining("'nope', which is not a step");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").step("a", "k", null).step("a", "k", null))
                .withMessageContaining("already");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").build()).withMessageContaining("no steps");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").step("a b", "k", null))
                .withMessageContaining("step name");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").step("a'; DROP TABLE jobs;--", "k", null))
                .withMessageContaining("step name");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").step("x".repeat(129), "k", null));
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").step("a", "k", null, "b", "b"))
                .withMessageContaining("twice");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("bidi\u202Eevil"))
                .withMessageContaining("workflow name");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder(" "));
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").step("a", "bad\u0000kind", null));
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w")
                .step("a", "k", null, JobOptions.builder().dependsOn(1).build())).withMessageContaining("step names");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w")
                .step("a", "k", null, JobOptions.builder().uniqueKey("u").build())).withMessageContaining("unique key");
        assertThatIllegalArgumentException().isThrownBy(() -> Workflow.builder("w").dependencyMode(DependencyMode.ANY_DIED));
    }

    /** A dead step cancels what waits for it; a retry re-runs the dead step and re-enqueues the cancelled ones. */
    @Test
    void aDeadStepCancelsItsDependentsAndARetryRunsTheRest() {
        Docket docket = docket();
        AtomicBoolean declined = new AtomicBoolean(true);
        long id = docket.enqueueWorkflow(order(4)).id();
        worker(docket, w -> w.queue("default", 4).pollInterval(Duration.ofMillis(50))
                .handler("charge", Order.class, (o, ctx) -> { })
                .handler("ship", Order.class, (o, ctx) -> {
                    if (declined.get()) {
                        throw new PermanentJobFailure("no courier");
                    }
                })
                .handler("invoice", Order.class, (o, ctx) -> { })
                .handler("email", Order.class, (o, ctx) -> { }));

        WorkflowInfo failed = awaitStatus(docket, id, WorkflowInfo.Status.FAILED);
        Map<String, WorkflowInfo.Step> s = steps(failed);
        assertThat(s.get("ship").state()).isEqualTo(JobState.DEAD);
        assertThat(s.get("invoice").state()).isEqualTo(JobState.COMPLETED);
        assertThat(s.get("email").state()).isEqualTo(JobState.CANCELLED);
        long oldEmail = s.get("email").jobId();
        assertThat(docket.job(oldEmail).orElseThrow().metadata()).contains("dependency " + s.get("ship").jobId() + " died");

        declined.set(false);
        assertThat(docket.admin().retryWorkflow(id)).isEqualTo(2);

        WorkflowInfo done = awaitStatus(docket, id, WorkflowInfo.Status.COMPLETED);
        assertThat(steps(done).get("ship").jobId()).as("replayed in place").isEqualTo(s.get("ship").jobId());
        assertThat(steps(done).get("email").jobId()).as("enqueued again").isNotEqualTo(oldEmail);
        assertThat(docket.admin().retryWorkflow(id)).as("nothing left to retry").isZero();
        assertThat(docket.admin().retryWorkflow(987_654L)).isZero();
    }

    @Test
    void cancellingAWorkflowCancelsEveryStepNotFinished() throws Exception {
        Docket docket = docket();
        long id = docket.enqueueWorkflow(order(5)).id();
        CountDownLatch charging = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofMillis(50))
                .heartbeatInterval(Duration.ofMillis(200))
                .handler("charge", Order.class, (o, ctx) -> {
                    charging.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                    }
                }));
        assertThat(charging.await(20, TimeUnit.SECONDS)).isTrue();

        assertThat(docket.admin().cancelWorkflow(id)).isEqualTo(4);

        WorkflowInfo cancelled = docket.admin().workflow(id).orElseThrow();
        assertThat(cancelled.status()).isEqualTo(WorkflowInfo.Status.CANCELLED);
        assertThat(cancelled.steps()).allMatch(step -> step.state() == JobState.CANCELLED);
        assertThat(interrupted.await(20, TimeUnit.SECONDS)).as("the running step is interrupted").isTrue();
        assertThat(docket.admin().cancelWorkflow(id)).isZero();
        assertThat(docket.admin().workflow(123_456L)).isEmpty();
    }
}
