package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.docket.testing.DocketTest;
import dev.docket.testing.Queries;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Worker.Builder#transactionalHandler}: the handler's writes on its transaction and its job's
 * completion commit together; a failure, a fenced-out commit or a timeout leaves none of its writes.
 */
class TransactionalHandlerTest extends DocketTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    record Task(String name) {
    }

    private Docket docket;

    @BeforeEach
    void setUp() {
        docket = docket();
        execute("CREATE TABLE {s}.effects (job_id bigint PRIMARY KEY, attempt int NOT NULL)");
    }

    /** The handler's own write: one row per job, keyed by the job id. */
    private void record(Connection tx, JobContext ctx) throws SQLException {
        try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + schema + ".effects VALUES (?, ?)")) {
            ps.setLong(1, ctx.jobId());
            ps.setInt(2, ctx.attempt());
            ps.executeUpdate();
        }
    }

    private List<Long> effects() {
        return Queries.longs(dataSource(), schema, "SELECT job_id FROM {s}.effects ORDER BY job_id");
    }

    @Test
    void theHandlersWritesCommitWithTheCompletionOnAStartedWorker() {
        long tx = docket.enqueue("tx", new Task("a"));
        long plain = docket.enqueue("plain", new Task("b"));
        worker(docket, w -> w.queue("default", 4)
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> record(c, ctx))
                .handler("plain", Task.class, (t, ctx) -> { }));

        JobInfo done = awaitState(docket, tx, JobState.COMPLETED, WAIT);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(effects()).containsExactly(tx);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id = ?", tx)).isEqualTo(1);
        awaitState(docket, plain, JobState.COMPLETED, WAIT);
    }

    @Test
    void withoutHistoryTheCompletedJobIsDeletedInTheSameTransaction() {
        Docket noHistory = docket(b -> b.historyRetention(Duration.ZERO));
        long id = noHistory.enqueue("tx", new Task("a"));
        List<JobRun> runs = noHistory.worker().queue("default", 1)
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> record(c, ctx)).runReadyJobs();
        assertThat(runs).singleElement().extracting(JobRun::result).isEqualTo(JobRun.Result.COMPLETED);
        assertThat(effects()).containsExactly(id);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history")).isZero();
    }

    @Test
    void aThrowingHandlersWritesRollBackAndTheFailureIsRetriedOrDead() {
        long retried = docket.enqueue("fails", new Task("a"));
        long dead = docket.enqueue("dies", new Task("b"));
        List<JobRun> runs = docket.worker().queue("default", 1)
                .transactionalHandler("fails", Task.class, (t, ctx, c) -> {
                    record(c, ctx);
                    throw new IllegalStateException("boom");
                })
                .transactionalHandler("dies", Task.class, (t, ctx, c) -> {
                    record(c, ctx);
                    throw new PermanentJobFailure("never");
                })
                .runReadyJobs();

        assertThat(runs).extracting(JobRun::result).containsExactlyInAnyOrder(JobRun.Result.RETRYING, JobRun.Result.DEAD);
        assertThat(effects()).isEmpty();
        JobInfo retry = docket.job(retried).orElseThrow();
        assertThat(retry.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(retry.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("boom"));
        assertThat(docket.job(dead).orElseThrow().state()).isEqualTo(JobState.DEAD);
    }

    /** Another worker took the job while the handler ran: the commit is fenced out and nothing the handler wrote stays. */
    @Test
    void aLostLeaseRollsTheHandlersWritesBack() {
        long id = docket.enqueue("tx", new Task("a"));
        List<JobRun> runs = docket.worker().queue("default", 1)
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> {
                    record(c, ctx);
                    takeOver(id);
                }).runReadyJobs();

        assertThat(runs).singleElement().extracting(JobRun::result).isEqualTo(JobRun.Result.LEASE_LOST);
        assertThat(effects()).isEmpty();
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).as("the other attempt still owns it").isEqualTo(JobState.RUNNING);
        assertThat(job.lockedBy()).isEqualTo("other");
    }

    /** The same on a started worker, with a handler that does not stop when interrupted. */
    @Test
    void aLostLeaseOnAStartedWorkerRollsTheHandlersWritesBack() throws Exception {
        long id = docket.enqueue("tx", new Task("a"));
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        Worker worker = worker(docket, w -> w.queue("default", 1).heartbeatInterval(Duration.ofMillis(100))
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> {
                    record(c, ctx);
                    inside.countDown();
                    awaitUninterruptibly(proceed);
                }));
        assertThat(inside.await(20, TimeUnit.SECONDS)).isTrue();
        takeOver(id);
        proceed.countDown();

        Awaitility.await().atMost(WAIT).until(() -> worker.inFlight() == 0);
        assertThat(effects()).isEmpty();
        assertThat(docket.job(id).orElseThrow().lockedBy()).isEqualTo("other");
    }

    @Test
    void aSnoozeCommitsTheWritesWithTheSnooze() {
        long id = docket.enqueue("tx", new Task("a"));
        List<JobRun> runs = docket.worker().queue("default", 1)
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> {
                    record(c, ctx);
                    ctx.snooze(Duration.ofHours(1));
                }).runReadyJobs();

        assertThat(runs).singleElement().extracting(JobRun::result).isEqualTo(JobRun.Result.SNOOZED);
        assertThat(effects()).containsExactly(id);
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(job.attempt()).as("a snooze gives the attempt back").isZero();
    }

    /**
     * A timeout interrupts the handler in the middle of a statement; its transaction rolls back (the server
     * notices only when the statement ends: the sleep is short so that the schema can be dropped soon after).
     */
    @Test
    void aTimeoutRollsTheWritesBackAndFailsTheAttempt() {
        long id = docket.enqueue("tx", new Task("a"));
        JobKind<Task> tx = JobKind.of("tx", Task.class).timeout(Duration.ofMillis(300)).build();
        worker(docket, w -> w.queue("default", 1).transactionalHandler(tx, (t, ctx, c) -> {
            record(c, ctx);
            c.createStatement().execute("SELECT pg_sleep(2)");
        }));

        JobInfo job = awaitState(docket, id, JobState.SCHEDULED, WAIT);
        assertThat(job.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("timed out"));
        assertThat(effects()).isEmpty();
    }

    /** The transaction is Docket's: a handler that tries to end it fails its attempt, and nothing it wrote stays. */
    @Test
    void theHandlerCannotCommitRollBackOrCloseTheTransaction() {
        List<String> refused = List.of("commit", "rollback", "setAutoCommit", "close");
        for (String operation : refused) {
            docket.enqueue("tx", new Task(operation));
        }
        List<JobRun> runs = docket.worker().queue("default", 1)
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> {
                    record(c, ctx);
                    switch (t.name()) {
                        case "commit" -> c.commit();
                        case "rollback" -> c.rollback();
                        case "setAutoCommit" -> c.setAutoCommit(true);
                        default -> c.close();
                    }
                }).runReadyJobs();

        assertThat(runs).hasSize(refused.size()).allSatisfy(r -> {
            assertThat(r.result()).isEqualTo(JobRun.Result.RETRYING);
            assertThat(r.error()).contains("IllegalStateException").contains("is refused");
        });
        assertThat(effects()).isEmpty();
    }

    @Test
    void savepointsInsideTheTransactionWork() {
        long id = docket.enqueue("tx", new Task("a"));
        List<JobRun> runs = docket.worker().queue("default", 1)
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> {
                    var savepoint = c.setSavepoint();
                    c.createStatement().execute("INSERT INTO " + schema + ".effects VALUES (-1, 0)");
                    c.rollback(savepoint);
                    record(c, ctx);
                }).runReadyJobs();
        assertThat(runs).singleElement().extracting(JobRun::result).isEqualTo(JobRun.Result.COMPLETED);
        assertThat(effects()).containsExactly(id);
    }

    /** A JobKind brings its payload version and upcasters to the transactional handler as to any other. */
    @Test
    void aJobKindBringsItsSettingsToTheTransactionalHandler() {
        long id = docket.enqueue("tx", java.util.Map.of("label", "old"));
        JobKind<Task> kind = JobKind.of("tx", Task.class).payloadVersion(2)
                .upcaster(1, tree -> ((com.fasterxml.jackson.databind.node.ObjectNode) tree).put("name", "upcast"))
                .build();
        List<String> seen = new java.util.ArrayList<>();
        List<JobRun> runs = docket.worker().queue("default", 1)
                .transactionalHandler(kind, (t, ctx, c) -> {
                    seen.add(t.name());
                    record(c, ctx);
                }).runReadyJobs();
        assertThat(runs).singleElement().extracting(JobRun::result).isEqualTo(JobRun.Result.COMPLETED);
        assertThat(seen).containsExactly("upcast");
        assertThat(effects()).containsExactly(id);
    }

    @Test
    void registrationRefusesMissingAndDuplicateHandlers() {
        JobKind<Task> kind = JobKind.of("tx", Task.class).build();
        assertThatThrownBy(() -> docket.worker().transactionalHandler("tx", Task.class, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("handler");
        assertThatThrownBy(() -> docket.worker().transactionalHandler(kind, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("handler");
        assertThatThrownBy(() -> docket.worker().transactionalHandler("tx", null, (t, ctx, c) -> { }))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("payloadType");
        assertThatThrownBy(() -> docket.worker().transactionalHandler("bad kind\u0000", Task.class, (t, ctx, c) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> docket.worker().transactionalHandler("x".repeat(10_000), Task.class, (t, ctx, c) -> { }))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> docket.worker().handler("tx", Task.class, (t, ctx) -> { })
                .transactionalHandler(kind, (t, ctx, c) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already registered");
    }

    /** What a rescue followed by another worker's claim does to the job's row. */
    private void takeOver(long id) {
        execute("UPDATE {s}.jobs SET attempt = attempt + 1, locked_by = 'other' WHERE id = " + id);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // A handler stuck in work that ignores interrupts, as the lost lease's interrupt finds it.
            }
        }
    }
}
