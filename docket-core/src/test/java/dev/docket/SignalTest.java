package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import dev.docket.testing.Queries;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Durable waits for signals (issue 27): declared at enqueue or from a running handler, ended by a signal sent
 * in its own transaction or the caller's, exactly once, with kept signals taken by the next wait, timeouts
 * down their three paths, and no worker slot or lease held while waiting.
 */
class SignalTest extends DocketTest {

    record Order(long id) {
    }

    record Approval(String by, int level) {
    }

    private static JobOptions awaiting(String signal) {
        return JobOptions.builder().awaitSignal(signal).build();
    }

    private JobState state(Docket docket, long id) {
        return docket.job(id).orElseThrow().state();
    }

    /** Transactions waiting for the signal lock of {@code jobId} (the worker's wait behind an open sender). */
    private long waitingForSignalLock(long jobId) {
        return queryLong("""
                SELECT count(*) FROM pg_locks
                 WHERE locktype = 'advisory' AND NOT granted
                   AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)""",
                "docket.signal." + schema + "." + jobId);
    }

    @Test
    @Timeout(60)
    void aJobDeclaredToAwaitASignalWaitsWithoutAWorkerAndRunsOnceItArrives() throws Exception {
        Docket docket = docket();
        long order = docket.enqueue("ship", new Order(1), awaiting("approved"));
        JobInfo waiting = docket.job(order).orElseThrow();
        assertThat(waiting.state()).isEqualTo(JobState.WAITING);
        assertThat(waiting.signalWait().signal()).isEqualTo("approved");
        assertThat(waiting.signalWait().since()).isNotNull();
        assertThat(waiting.signalWait().deadline()).isNull();
        assertThat(waiting.signalWait().onTimeout()).isNull();

        ConcurrentLinkedQueue<String> ran = new ConcurrentLinkedQueue<>();
        CountDownLatch shipped = new CountDownLatch(1);
        CountDownLatch other = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 1)
                .handler("ship", Order.class, (o, ctx) -> {
                    ran.add("ship " + ctx.signal("approved", Approval.class).orElseThrow());
                    shipped.countDown();
                })
                .handler("other", Order.class, (o, ctx) -> other.countDown()));
        docket.enqueue("other", new Order(2));
        assertThat(other.await(20, TimeUnit.SECONDS)).as("a later job runs meanwhile on the only slot").isTrue();
        assertThat(state(docket, order)).isEqualTo(JobState.WAITING);

        assertThat(docket.signal(order, "approved", new Approval("ada", 2))).isEqualTo(SignalDelivery.RESUMED);

        assertThat(shipped.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("ship Approval[by=ada, level=2]");
        JobInfo done = awaitState(docket, order, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.signals()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("approved");
            assertThat(s.resumedAt()).isNotNull();
            assertThat(s.payload()).contains("ada");
            assertThat(s.toString()).doesNotContain("ada");
        });
        assertThat(done.metadata()).contains("docket.signals").contains("approved");
    }

    @Test
    void aSignalSentInARolledBackTransactionNeverArrivesAndOneThatCommitsDoes() throws Exception {
        Docket docket = docket();
        long order = docket.enqueue("ship", new Order(1), awaiting("approved"));

        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThat(docket.signal(tx, order, "approved", new Approval("ada", 1))).isEqualTo(SignalDelivery.RESUMED);
            tx.rollback();
        }
        assertThat(state(docket, order)).isEqualTo(JobState.WAITING);
        assertThat(docket.job(order).orElseThrow().signals()).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM {s}.signals")).isZero();

        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            try (Statement st = tx.createStatement()) {
                st.execute("CREATE TABLE " + schema + ".approvals (order_id bigint)");
                st.execute("INSERT INTO " + schema + ".approvals VALUES (1)");
            }
            assertThat(docket.signal(tx, order, "approved", null)).isEqualTo(SignalDelivery.RESUMED);
            assertThat(stateSeenByAnother(order)).as("invisible before the commit").isEqualTo("waiting");
            tx.commit();
        }
        JobInfo resumed = docket.job(order).orElseThrow();
        assertThat(resumed.state()).isEqualTo(JobState.READY);
        assertThat(resumed.signals()).singleElement().satisfies(s -> {
            assertThat(s.payload()).isEqualTo("{}");
            assertThat(resumed.runAt()).as("due when its wait ended, not when it was enqueued")
                    .isAfterOrEqualTo(s.sentAt()).isAfter(resumed.createdAt());
        });
    }

    private String stateSeenByAnother(long id) throws Exception {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT state FROM " + schema + ".jobs WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    @Test
    @Timeout(60)
    void aHandlerWaitsForASignalGivingBackItsSlotLeaseAndAttemptAndResumesWithIt() throws Exception {
        Docket docket = docket();
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        CountDownLatch otherRan = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        long order = docket.enqueue("ship", new Order(7));
        worker(docket, w -> w.queue("default", 1)
                .handler("ship", Order.class, (o, ctx) -> {
                    var approval = ctx.signal("approved", Approval.class);
                    events.add("run attempt " + ctx.attempt() + " approval " + approval.map(Approval::by).orElse("none"));
                    if (approval.isEmpty()) {
                        ctx.awaitSignal("approved");
                        return;
                    }
                    done.countDown();
                })
                .handler("other", Order.class, (o, ctx) -> otherRan.countDown()));
        await().atMost(Duration.ofSeconds(20)).until(() -> state(docket, order) == JobState.WAITING);
        JobInfo waiting = docket.job(order).orElseThrow();
        assertThat(waiting.lockedBy()).isNull();
        assertThat(waiting.attempt()).as("the attempt is given back").isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ? AND lease_until IS NULL", order)).isEqualTo(1);
        assertThat(waiting.signalWait().signal()).isEqualTo("approved");

        docket.enqueue("other", new Order(8));
        assertThat(otherRan.await(20, TimeUnit.SECONDS)).as("the slot of the only worker is free").isTrue();

        assertThat(docket.signal(order, "approved", new Approval("grace", 3))).isEqualTo(SignalDelivery.RESUMED);
        assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(events).containsExactly("run attempt 1 approval none", "run attempt 1 approval grace");
        awaitState(docket, order, JobState.COMPLETED, Duration.ofSeconds(10));
    }

    @Test
    @Timeout(60)
    void aSignalThatArrivesBeforeItsWaiterIsKeptAndTheWaitTakesIt() throws Exception {
        Docket docket = docket();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch signalled = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        long job = docket.enqueue("step", new Order(1));
        worker(docket, w -> w.queue("default", 2).handler("step", Order.class, (o, ctx) -> {
            if (runs.incrementAndGet() == 1) {
                running.countDown();
                assertThat(signalled.await(20, TimeUnit.SECONDS)).isTrue();
                // Waits for the signal that was sent while it ran: the wait takes it at once.
                ctx.awaitSignal("go");
                return;
            }
            assertThat(ctx.signal("go", String.class)).contains("now");
            done.countDown();
        }));
        assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(docket.signal(job, "go", "now")).isEqualTo(SignalDelivery.KEPT);
        assertThat(docket.job(job).orElseThrow().signals()).singleElement()
                .satisfies(s -> assertThat(s.resumedAt()).as("kept, not taken yet").isNull());
        signalled.countDown();

        assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
        JobInfo info = awaitState(docket, job, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(runs).hasValue(2);
        assertThat(info.signals()).singleElement().satisfies(s -> assertThat(s.resumedAt()).isNotNull());
        assertThat(info.metadata()).contains("docket.signals");
    }

    @Test
    void aSignalForAJobScheduledLaterIsKeptAndReadableWhenItRuns() {
        Docket docket = docket();
        long reminder = docket.enqueue("remind", new Order(1),
                JobOptions.builder().delay(Duration.ofDays(3)).build());
        assertThat(docket.signal(reminder, "cancelled", Map.of("why", "user left"))).isEqualTo(SignalDelivery.KEPT);
        assertThat(state(docket, reminder)).isEqualTo(JobState.SCHEDULED);

        List<String> sent = new ArrayList<>();
        List<JobRun> runs = docket.worker().queue("default", 1).handler("remind", Order.class, (o, ctx) -> {
            if (ctx.signal("cancelled", Map.class).isEmpty()) {
                sent.add("reminder " + o.id());
            }
        }).runJobsDueWithin(Duration.ofDays(4));

        assertThat(runs).singleElement().satisfies(r -> assertThat(r.completed()).isTrue());
        assertThat(sent).as("the handler saw the kept signal").isEmpty();
    }

    /**
     * The race the per-job lock closes: a sender's transaction is open when the worker writes the handler's wait.
     * The wait must wait for that transaction; once it commits, the wait finds the signal and the job is ready.
     */
    @Test
    @Timeout(60)
    void aWaitWrittenWhileASignalIsInFlightWaitsForItsCommitAndTakesIt() throws Exception {
        Docket docket = docket();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch resumed = new CountDownLatch(1);
        long job = docket.enqueue("step", new Order(1));
        worker(docket, w -> w.queue("default", 1).handler("step", Order.class, (o, ctx) -> {
            if (ctx.signal("go", String.class).isPresent()) {
                resumed.countDown();
                return;
            }
            running.countDown();
            assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
            ctx.awaitSignal("go");
        }));
        assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThat(docket.signal(tx, job, "go", "now")).as("the job still runs").isEqualTo(SignalDelivery.KEPT);
            release.countDown();
            await().atMost(Duration.ofSeconds(20)).until(() -> waitingForSignalLock(job) == 1);
            assertThat(stateSeenByAnother(job)).as("the wait is not written yet").isEqualTo("running");
            tx.commit();
        }
        assertThat(resumed.await(20, TimeUnit.SECONDS)).as("the wait took the signal committed before it").isTrue();
        awaitState(docket, job, JobState.COMPLETED, Duration.ofSeconds(10));
    }

    /** Many waits and senders at once: every job resumes, none is left waiting with its signal kept. */
    @Test
    @Timeout(120)
    void signalsRacingTheirWaitsNeverLoseAWakeUp() throws Exception {
        Docket docket = docket();
        int jobs = 60;
        Map<Long, CountDownLatch> waiting = new ConcurrentHashMap<>();
        Map<Long, AtomicInteger> resumed = new ConcurrentHashMap<>();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            long id = docket.enqueue("step", new Order(i));
            ids.add(id);
            waiting.put(id, new CountDownLatch(1));
            resumed.put(id, new AtomicInteger());
        }
        worker(docket, w -> w.queue("default", 8).handler("step", Order.class, (o, ctx) -> {
            if (ctx.signal("go", String.class).isPresent()) {
                resumed.get(ctx.jobId()).incrementAndGet();
                return;
            }
            ctx.awaitSignal("go");
            waiting.get(ctx.jobId()).countDown();
        }));
        ExecutorService senders = Executors.newFixedThreadPool(4);
        try {
            List<Future<SignalDelivery>> sent = new ArrayList<>();
            for (long id : ids) {
                // Sent the moment the handler has asked to wait, while the wait is being written.
                sent.add(senders.submit(() -> {
                    assertThat(waiting.get(id).await(30, TimeUnit.SECONDS)).isTrue();
                    return docket.signal(id, "go", "now");
                }));
            }
            for (Future<SignalDelivery> f : sent) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isIn(SignalDelivery.RESUMED, SignalDelivery.KEPT);
            }
        } finally {
            senders.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(resumed.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(queryLong("SELECT count(*) FROM {s}.signals WHERE resumed_at IS NULL"))
                .as("every signal ended a wait").isZero();
    }

    @Test
    @Timeout(60)
    void eachWaitIsEndedByExactlyOneOfManyConcurrentSignals() throws Exception {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), awaiting("go"));
        int senders = 8;
        CyclicBarrier start = new CyclicBarrier(senders);
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        List<Future<SignalDelivery>> results = new ArrayList<>();
        try {
            for (int i = 0; i < senders; i++) {
                int n = i;
                results.add(pool.submit(() -> {
                    start.await();
                    return docket.signal(job, "go", n);
                }));
            }
            List<SignalDelivery> outcomes = new ArrayList<>();
            for (Future<SignalDelivery> f : results) {
                outcomes.add(f.get(30, TimeUnit.SECONDS));
            }
            assertThat(outcomes).filteredOn(d -> d == SignalDelivery.RESUMED).hasSize(1);
            assertThat(outcomes).filteredOn(d -> d == SignalDelivery.KEPT).hasSize(senders - 1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(state(docket, job)).isEqualTo(JobState.READY);
        assertThat(queryLong("SELECT count(*) FROM {s}.signals WHERE resumed_at IS NOT NULL")).isEqualTo(1);
    }

    @Test
    void aSignalToAJobThatIsNotLiveIsNotStored() {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1));
        docket.cancel(job);

        assertThat(docket.signal(job, "go", null)).isEqualTo(SignalDelivery.NO_LIVE_JOB);
        assertThat(docket.signal(987_654_321L, "go", null)).isEqualTo(SignalDelivery.NO_LIVE_JOB);
        assertThat(docket.signal(-1, "go", null)).isEqualTo(SignalDelivery.NO_LIVE_JOB);
        assertThat(queryLong("SELECT count(*) FROM {s}.signals")).isZero();
    }

    @Test
    @Timeout(60)
    void aWaitThatTimesOutWithRunRunsWithoutTheSignal() throws Exception {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), JobOptions.builder()
                .awaitSignal("go", Duration.ofMillis(1), SignalTimeout.RUN).build());
        JobInfo waiting = docket.job(job).orElseThrow();
        assertThat(waiting.signalWait().onTimeout()).isEqualTo(SignalTimeout.RUN);
        assertThat(waiting.signalWait().deadline()).isAfterOrEqualTo(waiting.signalWait().since());
        CountDownLatch ran = new CountDownLatch(1);
        List<Boolean> sawSignal = new ArrayList<>();
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler("step", Order.class, (o, ctx) -> {
                    sawSignal.add(ctx.signal("go", String.class).isPresent());
                    ran.countDown();
                }));
        assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
        JobInfo done = awaitState(docket, job, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(sawSignal).containsExactly(false);
        assertThat(done.metadata()).contains("\"timedOut\": true");
    }

    @Test
    @Timeout(60)
    void aWaitThatTimesOutWithFailDiesAndCancelsItsDependents() {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), JobOptions.builder()
                .awaitSignal("approved", Duration.ofMillis(1), SignalTimeout.FAIL).build());
        long after = docket.enqueue("step", new Order(2), JobOptions.builder().dependsOn(job).build());
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler("step", Order.class, (o, ctx) -> { }));

        JobInfo dead = awaitState(docket, job, JobState.DEAD, Duration.ofSeconds(20));
        assertThat(dead.deadReason()).startsWith("signal 'approved' did not arrive by ");
        assertThat(dead.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("approved"));
        assertThat(awaitState(docket, after, JobState.CANCELLED, Duration.ofSeconds(10)).metadata())
                .contains("dependency " + job + " died");
        assertThat(docket.signal(job, "approved", null)).isEqualTo(SignalDelivery.NO_LIVE_JOB);
    }

    @Test
    @Timeout(60)
    void aWaitThatTimesOutWithCancelIsCancelledWithItsReason() {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), JobOptions.builder()
                .awaitSignal("approved", Duration.ofMillis(1), SignalTimeout.CANCEL).build());
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler("step", Order.class, (o, ctx) -> { }));

        JobInfo cancelled = awaitState(docket, job, JobState.CANCELLED, Duration.ofSeconds(20));
        assertThat(cancelled.metadata()).contains("docket.cancelReason").contains("signal 'approved' did not arrive by");
    }

    @Test
    @Timeout(60)
    void aHandlersWaitTimesOutToo() {
        Docket docket = docket();
        AtomicInteger runs = new AtomicInteger();
        long job = docket.enqueue("step", new Order(1));
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler("step", Order.class, (o, ctx) -> {
                    runs.incrementAndGet();
                    ctx.awaitSignal("approved", Duration.ofMillis(100), SignalTimeout.CANCEL);
                }));
        awaitState(docket, job, JobState.CANCELLED, Duration.ofSeconds(20));
        assertThat(runs).hasValue(1);
    }

    @Test
    void aWaitForASignalBeforeTheTimeoutHoldsItsDeadlineUntilTheSignalEndsIt() {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), JobOptions.builder()
                .awaitSignal("approved", Duration.ofHours(1), SignalTimeout.FAIL).build());
        assertThat(docket.signal(job, "approved", null)).isEqualTo(SignalDelivery.RESUMED);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE await_deadline IS NOT NULL"))
                .as("out of the deadline index").isZero();
        assertThat(docket.job(job).orElseThrow().signalWait()).isNull();
    }

    @Test
    @Timeout(60)
    void aJobWaitsForBothItsDependenciesAndItsSignalInEitherOrder() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Order(1));
        long b = docket.enqueue("step", new Order(2));
        long signalFirst = docket.enqueue("step", new Order(3),
                JobOptions.builder().dependsOn(a).awaitSignal("go").build());
        long dependencyFirst = docket.enqueue("step", new Order(4),
                JobOptions.builder().dependsOn(b).awaitSignal("go").build());

        assertThat(docket.signal(signalFirst, "go", null)).isEqualTo(SignalDelivery.RESUMED);
        assertThat(state(docket, signalFirst)).as("still waits for its dependency").isEqualTo(JobState.WAITING);
        assertThat(docket.job(signalFirst).orElseThrow().signalWait()).isNull();

        List<JobRun> first = docket.worker().queue("default", 1).handler("step", Order.class, (o, ctx) -> { })
                .runReadyJobs();
        assertThat(first).extracting(JobRun::jobId).containsExactly(a, b, signalFirst);
        assertThat(state(docket, dependencyFirst)).as("its dependency done, still waits for its signal")
                .isEqualTo(JobState.WAITING);

        assertThat(docket.signal(dependencyFirst, "go", null)).isEqualTo(SignalDelivery.RESUMED);
        assertThat(state(docket, dependencyFirst)).isEqualTo(JobState.READY);
    }

    @Test
    void aWorkflowStepRunsOnlyAfterItsStepsAndItsApproval() {
        Docket docket = docket();
        WorkflowEnqueued flow = docket.enqueueWorkflow(Workflow.builder("order 9")
                .step("charge", "step", new Order(9))
                .step("ship", "step", new Order(9), JobOptions.builder().awaitSignal("approved").build(), "charge")
                .build());
        long ship = flow.steps().get("ship").id();
        Worker.Builder runner = docket.worker().queue("default", 1).handler("step", Order.class, (o, ctx) -> { });

        assertThat(runner.runReadyJobs()).extracting(JobRun::jobId).containsExactly(flow.steps().get("charge").id());
        assertThat(state(docket, ship)).isEqualTo(JobState.WAITING);
        docket.admin().sendSignal(ship, "approved", "{\"note\": \"ok\"}", "ada (operator, dashboard)");
        assertThat(runner.runReadyJobs()).extracting(JobRun::jobId).containsExactly(ship);
        assertThat(docket.job(ship).orElseThrow().metadata()).contains("ada (operator, dashboard)");
    }

    @Test
    void aRetriedCancelledStepWaitsForItsSignalAgainAsDeclared() {
        Docket docket = docket();
        WorkflowEnqueued flow = docket.enqueueWorkflow(Workflow.builder("order 10")
                .step("charge", "step", new Order(10))
                .step("ship", "step", new Order(10), JobOptions.builder()
                        .awaitSignal("approved", Duration.ofHours(1), SignalTimeout.CANCEL).build(), "charge")
                .build());
        long cancelledShip = flow.steps().get("ship").id();
        assertThat(docket.admin().cancelWorkflow(flow.id())).isEqualTo(2);
        assertThat(state(docket, cancelledShip)).isEqualTo(JobState.CANCELLED);

        assertThat(docket.admin().retryWorkflow(flow.id())).isEqualTo(2);
        long ship = docket.admin().workflow(flow.id()).orElseThrow().steps().stream()
                .filter(s -> s.name().equals("ship")).findFirst().orElseThrow().jobId();
        assertThat(ship).isNotEqualTo(cancelledShip);
        JobInfo retried = docket.job(ship).orElseThrow();
        assertThat(retried.state()).isEqualTo(JobState.WAITING);
        assertThat(retried.signalWait().signal()).isEqualTo("approved");
        assertThat(retried.signalWait().onTimeout()).isEqualTo(SignalTimeout.CANCEL);
        assertThat(Duration.between(retried.signalWait().since(), retried.signalWait().deadline()))
                .isEqualTo(Duration.ofHours(1));

        Worker.Builder runner = docket.worker().queue("default", 1).handler("step", Order.class, (o, ctx) -> { });
        assertThat(runner.runReadyJobs()).extracting(JobRun::jobId).doesNotContain(ship);
        assertThat(state(docket, ship)).isEqualTo(JobState.WAITING);
        assertThat(docket.signal(ship, "approved", null)).isEqualTo(SignalDelivery.RESUMED);
        assertThat(runner.runReadyJobs()).extracting(JobRun::jobId).containsExactly(ship);
    }

    @Test
    void runReadyJobsReportsAWaitAndRunsAJobWhoseSignalIsKeptAgain() {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1));
        Worker.Builder runner = docket.worker().queue("default", 1).handler("step", Order.class, (o, ctx) -> {
            if (ctx.signal("go", String.class).isEmpty()) {
                ctx.awaitSignal("go");
            }
        });
        assertThat(runner.runReadyJobs()).extracting(JobRun::result).containsExactly(JobRun.Result.AWAITING_SIGNAL);
        docket.signal(job, "go", "now");
        assertThat(runner.runReadyJobs()).extracting(JobRun::result).containsExactly(JobRun.Result.COMPLETED);
    }

    @Test
    @Timeout(60)
    void aTransactionalHandlerCanWait() throws Exception {
        Docket docket = docket();
        execute("CREATE TABLE {s}.steps (job bigint, attempt int)");
        CountDownLatch done = new CountDownLatch(1);
        long job = docket.enqueue("step", new Order(1));
        worker(docket, w -> w.queue("default", 1).transactionalHandler("step", Order.class, (o, ctx, tx) -> {
            try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + schema + ".steps VALUES (?, ?)")) {
                ps.setLong(1, ctx.jobId());
                ps.setInt(2, ctx.attempt());
                ps.executeUpdate();
            }
            if (ctx.signal("go", String.class).isEmpty()) {
                ctx.awaitSignal("go");
                return;
            }
            done.countDown();
        }));
        await().atMost(Duration.ofSeconds(20)).until(() -> state(docket, job) == JobState.WAITING);
        docket.signal(job, "go", "now");
        assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
        awaitState(docket, job, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(queryLong("SELECT count(*) FROM {s}.steps WHERE attempt = 1")).isEqualTo(2);
    }

    @Test
    @Timeout(60)
    void aJobInASequenceCannotWaitForASignal() {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), JobOptions.builder().sequenceKey("k").maxAttempts(1).build());
        worker(docket, w -> w.queue("default", 1).handler("step", Order.class, (o, ctx) -> ctx.awaitSignal("go")));
        JobInfo dead = awaitState(docket, job, JobState.DEAD, Duration.ofSeconds(20));
        assertThat(dead.errors().getLast().message()).contains("IllegalStateException").contains("sequence");
        assertThatIllegalArgumentException().isThrownBy(() ->
                JobOptions.builder().sequenceKey("k").awaitSignal("go").build()).withMessageContaining("sequence");
    }

    @Test
    void explainSaysWhichSignalAJobWaitsForAndWhatHappensWithoutIt() {
        Docket docket = docket();
        long a = docket.enqueue("step", new Order(1));
        long job = docket.enqueue("step", new Order(2), JobOptions.builder().dependsOn(a)
                .awaitSignal("approved", Duration.ofHours(2), SignalTimeout.CANCEL).build());

        JobExplanation why = docket.admin().explain(job).orElseThrow();

        assertThat(why.state()).isEqualTo(JobState.WAITING);
        assertThat(why.reasons()).extracting(JobExplanation.Reason::code)
                .containsExactly(JobExplanation.Code.WAITING_FOR_SIGNAL, JobExplanation.Code.WAITING_FOR_DEPENDENCIES);
        JobExplanation.Reason signal = why.reasons().getFirst();
        assertThat(signal.facts()).containsEntry("signal", "approved").containsEntry("onTimeout", "cancel")
                .containsKeys("since", "deadline");
        assertThat(signal.message()).contains("'approved'").contains("is cancelled")
                .contains("docket job signal " + job + " approved");
    }

    @Test
    void theSqlFunctionSendsASignalInTheCallersTransaction() throws Exception {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), awaiting("approved"));
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM " + schema + ".signal(?, 'approved', '{\"n\": 1}')")) {
                ps.setLong(1, job);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertThat(rs.getString("result")).isEqualTo("resumed");
                    assertThat(rs.getString("queue")).isEqualTo("default");
                }
            }
            c.commit();
        }
        assertThat(state(docket, job)).isEqualTo(JobState.READY);
    }

    @Test
    void aSignalIsRefusedOutsideReadCommittedAndAJobKeepsAtMostAHundred() throws Exception {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), JobOptions.builder().delay(Duration.ofHours(1)).build());
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            tx.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertThatThrownBy(() -> docket.signal(tx, job, "go", null)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("READ COMMITTED");
            tx.rollback();
        }
        for (int i = 0; i < 100; i++) {
            assertThat(docket.signal(job, "go", i)).isEqualTo(SignalDelivery.KEPT);
        }
        assertThatThrownBy(() -> docket.signal(job, "go", 100)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("100 kept signals");
        assertThat(docket.job(job).orElseThrow().signals()).hasSize(50);
    }

    @Test
    void malformedOversizedAndHostileSignalsAreRefusedWithIllegalArgumentException() {
        Docket docket = docket(b -> b.maxPayloadBytes(1024));
        long job = docket.enqueue("step", new Order(1), awaiting("go"));
        for (String name : new String[] {null, "", " ", "a b", "x".repeat(129), "caf\u00e9", "go\u0000", "go\ud800",
                "go\u202e", "../go", "go;drop"}) {
            assertThatIllegalArgumentException().as("name %s", name)
                    .isThrownBy(() -> docket.signal(job, name, null)).withMessageContaining("signal name");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> docket.signal(job, "go", "x".repeat(2000)))
                .withMessageContaining("the payload of signal go is");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.signal(job, "go", new Object()))
                .withMessageContaining("cannot be written as JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.signal(job, "go", "a\u0000b"))
                .withMessageContaining("NUL");
        DocketAdmin admin = docket.admin();
        assertThatIllegalArgumentException().isThrownBy(() -> admin.sendSignal(job, "go", "{\"a\": 1, \"a\": 2}", "ada"))
                .withMessageContaining("field name twice");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.sendSignal(job, "go", "{", "ada"))
                .withMessageContaining("not valid JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.sendSignal(job, "go", "\"\\ud800\"", "ada"));
        for (String by : new String[] {null, "", "a\nb", "x".repeat(201), "\ud800"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> admin.sendSignal(job, "go", null, by))
                    .withMessageContaining("sentBy");
        }
        assertThat(state(docket, job)).as("nothing was sent").isEqualTo(JobState.WAITING);
        assertThat(queryLong("SELECT count(*) FROM {s}.signals")).isZero();
    }

    @Test
    void waitOptionsAreCheckedWhenTheyAreSet() {
        JobOptions.Builder b = JobOptions.builder();
        assertThatIllegalArgumentException().isThrownBy(() -> b.awaitSignal("a b")).withMessageContaining("signal name");
        assertThatIllegalArgumentException().isThrownBy(() -> b.awaitSignal("go", Duration.ZERO, SignalTimeout.RUN))
                .withMessageContaining("1ms to 100 years");
        assertThatIllegalArgumentException().isThrownBy(() -> b.awaitSignal("go", Duration.ofMillis(-1), SignalTimeout.RUN));
        assertThatIllegalArgumentException().isThrownBy(() -> b.awaitSignal("go", Duration.ofDays(365 * 101), SignalTimeout.RUN));
        assertThatIllegalArgumentException().isThrownBy(() -> b.awaitSignal("go", Duration.ofSeconds(Long.MAX_VALUE),
                SignalTimeout.RUN));
        assertThatThrownBy(() -> b.awaitSignal("go", Duration.ofHours(1), null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.awaitSignal("go", null, SignalTimeout.FAIL)).isInstanceOf(NullPointerException.class);

        JobOptions options = JobOptions.builder().awaitSignal("go", Duration.ofHours(1), SignalTimeout.FAIL).build();
        assertThat(options.awaitSignal()).isEqualTo("go");
        assertThat(options.signalTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(options.onSignalTimeout()).isEqualTo(SignalTimeout.FAIL);
        assertThat(options).isEqualTo(options.toBuilder().build()).isNotEqualTo(JobOptions.defaults());
        assertThat(options.toString()).contains("awaitSignal=go");
        assertThat(options.toBuilder().awaitSignal("other").build().signalTimeout())
                .as("a wait without a timeout replaces one with").isNull();
    }

    @Test
    void aHandlersMalformedSignalCallsAreRefusedWithIllegalArgumentException() {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1));
        docket.signal(job, "go", Map.of("not", "a string"));
        List<String> refused = new ArrayList<>();
        List<JobRun> runs = docket.worker().queue("default", 1).handler("step", Order.class, (o, ctx) -> {
            for (String name : new String[] {null, "", "a b", "x".repeat(129), "go\ud800"}) {
                try {
                    ctx.signal(name, String.class);
                } catch (IllegalArgumentException e) {
                    refused.add("read " + e.getMessage().startsWith("signal name"));
                }
                try {
                    ctx.awaitSignal(name);
                } catch (IllegalArgumentException e) {
                    refused.add("await " + e.getMessage().startsWith("signal name"));
                }
            }
            for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-5), Duration.ofDays(365 * 101)}) {
                try {
                    ctx.awaitSignal("go", bad, SignalTimeout.RUN);
                } catch (IllegalArgumentException e) {
                    refused.add("timeout");
                }
            }
            try {
                ctx.signal("go", Integer.class);
            } catch (IllegalArgumentException e) {
                refused.add(e.getMessage());
            }
        }).runReadyJobs();
        assertThat(runs).extracting(JobRun::result).as("no wait was asked for").containsExactly(JobRun.Result.COMPLETED);
        assertThat(refused).hasSize(14).startsWith("read true", "await true").contains("timeout")
                .last().asString().startsWith("the payload of signal go does not map to java.lang.Integer")
                .doesNotContain("a string");
    }

    @Test
    void theSqlFunctionRefusesMalformedInputWithSqlState22023() throws Exception {
        Docket docket = docket();
        long job = docket.enqueue("step", new Order(1), awaiting("go"));
        for (String call : new String[] {"signal(?, 'a b')", "signal(?, NULL)", "signal(?, '')",
                "signal(?, repeat('x', 129))", "signal(?, 'go', '{}', '')", "signal(?, 'go', '{}', repeat('x', 201))"}) {
            try (Connection c = dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT * FROM " + schema + "." + call)) {
                ps.setLong(1, job);
                assertThatThrownBy(ps::executeQuery).as(call).isInstanceOf(java.sql.SQLException.class)
                        .satisfies(e -> assertThat(((java.sql.SQLException) e).getSQLState()).isEqualTo("22023"));
            }
        }
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT * FROM " + schema + ".signal(NULL, 'go')")) {
            assertThatThrownBy(ps::executeQuery).isInstanceOf(java.sql.SQLException.class)
                    .satisfies(e -> assertThat(((java.sql.SQLException) e).getSQLState()).isEqualTo("22023"));
        }
        assertThat(state(docket, job)).isEqualTo(JobState.WAITING);
    }

    @Test
    @Timeout(60)
    void theSqlEnqueueDeclaresAWaitThatASignalOrItsTimeoutEnds() throws Exception {
        Docket docket = docket();
        long signalled = sqlEnqueueOne("SELECT id FROM " + schema + ".enqueue('step', '{\"n\": 1}', "
                + "await_signal => 'approved')");
        long timedOut = sqlEnqueueOne("SELECT id FROM " + schema + ".enqueue('step', '{\"n\": 2}', "
                + "await_signal => 'approved', await_timeout => interval '1 millisecond', await_on_timeout => 'cancel')");
        JobInfo waiting = docket.job(signalled).orElseThrow();
        assertThat(waiting.state()).isEqualTo(JobState.WAITING);
        assertThat(waiting.signalWait().signal()).isEqualTo("approved");
        assertThat(waiting.signalWait().deadline()).isNull();
        assertThat(docket.job(timedOut).orElseThrow().signalWait().onTimeout()).isEqualTo(SignalTimeout.CANCEL);

        assertThat(docket.signal(signalled, "approved", null)).isEqualTo(SignalDelivery.RESUMED);
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler("step", Order.class, (o, ctx) -> { }));
        awaitState(docket, signalled, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(awaitState(docket, timedOut, JobState.CANCELLED, Duration.ofSeconds(20)).metadata())
                .contains("signal 'approved' did not arrive by");
    }

    @Test
    void theSqlEnqueueRefusesMalformedWaitsWithSqlState22023() throws Exception {
        docket();
        for (String args : new String[] {"await_signal => 'a b'", "await_signal => ''", "await_signal => repeat('x', 129)",
                "await_signal => 'go', await_timeout => interval '1 second'",
                "await_signal => 'go', await_on_timeout => 'run'",
                "await_timeout => interval '1 second', await_on_timeout => 'run'",
                "await_signal => 'go', await_timeout => interval '0 seconds', await_on_timeout => 'run'",
                "await_signal => 'go', await_timeout => interval '101 years', await_on_timeout => 'run'",
                "await_signal => 'go', await_timeout => interval '1 second', await_on_timeout => 'later'"}) {
            try (Connection c = dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT * FROM " + schema + ".enqueue('step', '{}', " + args + ")")) {
                assertThatThrownBy(ps::executeQuery).as(args).isInstanceOf(java.sql.SQLException.class)
                        .satisfies(e -> assertThat(((java.sql.SQLException) e).getSQLState()).isEqualTo("22023"));
            }
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    private long sqlEnqueueOne(String call) throws java.sql.SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(call);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
