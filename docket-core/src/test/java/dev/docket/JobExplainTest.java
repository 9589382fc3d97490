package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.JobExplanation.Code;
import dev.docket.JobExplanation.Reason;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** "Why is this job not running?": each answer, created for real and read back from the database. */
class JobExplainTest extends DocketTest {

    record Task(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(15);

    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    /** Holds every job it runs until the test ends, so that they stay running. */
    private final JobHandler<Task> holding = (t, ctx) -> {
        started.countDown();
        release.await();
    };

    /** Runs before DocketTest closes the workers, which would otherwise wait for the held jobs. */
    @AfterEach
    void releaseHeldJobs() {
        release.countDown();
    }

    private void awaitStarted() throws InterruptedException {
        assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    private static JobExplanation explain(Docket docket, long id) {
        return docket.admin().explain(id).orElseThrow();
    }

    private static Reason first(JobExplanation e) {
        return e.reasons().getFirst();
    }

    private Worker serve(Docket docket, String queue, int concurrency, JobHandler<Task> handler) {
        return worker(docket, w -> w.queue(queue, concurrency).handler("task", Task.class, handler));
    }

    @Test
    void scheduledForLaterSaysWhen() {
        Docket docket = docket();
        serve(docket, "default", 1, (t, ctx) -> { });
        long id = docket.enqueue("task", new Task(1), JobOptions.builder().delay(Duration.ofHours(1)).build());

        JobExplanation e = explain(docket, id);

        assertThat(e.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(e.reasons()).extracting(Reason::code).containsExactly(Code.SCHEDULED);
        Instant runAt = docket.job(id).orElseThrow().runAt();
        assertThat(first(e).facts()).containsEntry("runAt", runAt.toString());
        assertThat(first(e).message()).isEqualTo("Scheduled for " + runAt + ".");
    }

    @Test
    void backingOffSaysTheAttemptAndUntilWhen() {
        Docket docket = docket(b -> b.retryPolicy("task", new RetryPolicy(5, Duration.ofHours(1), Duration.ofHours(1), 0)));
        serve(docket, "default", 1, (t, ctx) -> {
            throw new IllegalStateException("flaky");
        });
        long id = docket.enqueue("task", new Task(1));
        JobInfo job = Awaitility.await().atMost(WAIT).until(() -> docket.job(id).orElseThrow(),
                j -> j.state() == JobState.SCHEDULED && j.errors().size() == 1);

        Reason r = first(explain(docket, id));

        assertThat(r.code()).isEqualTo(Code.BACKING_OFF);
        assertThat(r.facts()).containsEntry("attempt", "1").containsEntry("runAt", job.runAt().toString());
        assertThat(r.message()).startsWith("Backing off after failed attempt 1 of 5: runs again at " + job.runAt());
    }

    @Test
    void aPausedQueueIsNamed() {
        Docket docket = docket();
        docket.admin().pauseQueue("default");
        serve(docket, "default", 1, (t, ctx) -> { });
        long id = docket.enqueue("task", new Task(1));

        JobExplanation e = explain(docket, id);

        assertThat(e.state()).isEqualTo(JobState.READY);
        assertThat(e.reasons()).extracting(Reason::code).containsExactly(Code.QUEUE_PAUSED);
    }

    @Test
    void aScheduledJobInAPausedQueueWithNoWorkerGetsEveryReason() {
        Docket docket = docket();
        docket.admin().pauseQueue("reports");
        long id = docket.enqueue("task", new Task(1), JobOptions.builder().queue("reports").delay(Duration.ofHours(1)).build());

        assertThat(explain(docket, id).reasons()).extracting(Reason::code)
                .containsExactly(Code.SCHEDULED, Code.QUEUE_PAUSED, Code.NO_WORKER_FOR_QUEUE);
    }

    @Test
    void aQueueAtItsCapIsNamed() {
        Docket docket = docket();
        docket.admin().setQueueLimits("default", 0, null);
        serve(docket, "default", 1, (t, ctx) -> { });
        long id = docket.enqueue("task", new Task(1));

        Reason r = first(explain(docket, id));

        assertThat(r.code()).isEqualTo(Code.QUEUE_AT_CAP);
        assertThat(r.facts()).containsEntry("running", "0").containsEntry("maxRunning", "0");
    }

    @Test
    void aTenantAtItsCapIsNamedAndTheOtherTenantIsNot() throws Exception {
        Docket docket = docket();
        docket.admin().setQueueLimits("default", null, 1);
        serve(docket, "default", 4, holding);
        docket.enqueue("task", new Task(1), JobOptions.builder().tenant("acme").build());
        awaitStarted();
        long waiting = docket.enqueue("task", new Task(2), JobOptions.builder().tenant("acme").build());

        Reason r = first(explain(docket, waiting));

        assertThat(r.code()).isEqualTo(Code.TENANT_AT_CAP);
        assertThat(r.facts()).containsEntry("tenant", "acme").containsEntry("running", "1")
                .containsEntry("tenantMaxRunning", "1");
    }

    @Test
    void noLiveWorkerForTheQueueIsNamed() {
        Docket docket = docket();
        serve(docket, "default", 1, (t, ctx) -> { });
        long id = docket.enqueue("task", new Task(1), JobOptions.builder().queue("reports").build());

        assertThat(explain(docket, id).reasons()).extracting(Reason::code).containsExactly(Code.NO_WORKER_FOR_QUEUE);
    }

    @Test
    void aKindNoLiveWorkerServesIsNamed() {
        Docket docket = docket();
        Worker worker = worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofHours(1)).listen(false)
                .handler("task", Task.class, (t, ctx) -> { }));
        Docket producer = docket();
        long id = producer.enqueue("tsak", new Task(1));

        Reason r = first(explain(docket, id));

        assertThat(r.code()).isEqualTo(Code.KIND_NOT_SERVED);
        assertThat(r.message()).contains(worker.workerId()).contains("none has a handler for kind tsak");
    }

    @Test
    void allSlotsBusySaysTheBacklogAheadAndAFreeSlotSaysReady() throws Exception {
        Docket docket = docket();
        serve(docket, "default", 1, holding);
        long running = docket.enqueue("task", new Task(1));
        awaitStarted();
        long second = docket.enqueue("task", new Task(2));
        long third = docket.enqueue("task", new Task(3));

        assertThat(first(explain(docket, second)).facts()).containsEntry("ahead", "0").containsEntry("slots", "1");
        Reason r = first(explain(docket, third));
        assertThat(r.code()).isEqualTo(Code.SLOTS_BUSY);
        assertThat(r.facts()).containsEntry("ahead", "1").containsEntry("running", "1");
        assertThat(r.message()).contains("All 1 slots").contains("1 ready jobs ahead of it");

        Reason run = first(explain(docket, running));
        assertThat(run.code()).isEqualTo(Code.RUNNING);
        assertThat(run.facts()).containsKeys("worker", "since", "leaseUntil").containsEntry("attempt", "1")
                .containsEntry("workerLive", "true");
    }

    /** A worker that polls once an hour and does not listen leaves a job ready with a free slot. */
    @Test
    void readyWithAFreeSlotSaysTheNextClaimTakesIt() {
        Docket docket = docket();
        worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofHours(1)).listen(false)
                .handler("task", Task.class, (t, ctx) -> { }));
        long id = docket().enqueue("task", new Task(1));

        Reason r = first(explain(docket, id));

        assertThat(r.code()).isEqualTo(Code.READY);
        assertThat(r.facts()).containsEntry("ahead", "0");
        assertThat(r.message()).contains("0 of 2 busy");
    }

    @Test
    void aNewerPayloadVersionWaitsForANewerWorker() {
        Docket docket = docket();
        serve(docket, "default", 1, (t, ctx) -> { });
        long id = docket.enqueue("task", new Task(1), JobOptions.builder().payloadVersion(2).build());
        Awaitility.await().atMost(WAIT).until(() -> docket.job(id).orElseThrow().waitReason().isPresent());

        JobExplanation e = explain(docket, id);

        assertThat(e.reasons()).extracting(Reason::code).contains(Code.WAITING_FOR_NEWER_VERSION);
        assertThat(e.reasons()).filteredOn(r -> r.code() == Code.WAITING_FOR_NEWER_VERSION).first()
                .satisfies(r -> assertThat(r.facts()).containsEntry("payloadVersion", "2"));
    }

    /** With a maintenance leader holding its lease (on another node, between rounds), a due job waits for its next round. */
    @Test
    void aDueJobWithALeaderWaitsForItsNextRound() {
        Docket docket = docket();
        execute("INSERT INTO {s}.leaders (role, leader_id, term, elected_at, expires_at) "
                + "VALUES ('maintainer', 'other-node', 1, now(), now() + interval '1 hour')");
        long id = docket.enqueue("task", new Task(1), JobOptions.builder().delay(Duration.ofHours(1)).build());
        execute("UPDATE {s}.jobs SET run_at = now() - interval '1 minute'");

        Reason r = first(explain(docket, id));

        assertThat(r.code()).isEqualTo(Code.DUE);
        assertThat(r.message()).endsWith("the maintenance leader makes it ready at its next round.");
    }

    @Test
    void aDueJobWithoutAMaintenanceLeaderSaysNothingMakesItReady() {
        Docket docket = docket();
        long id = docket.enqueue("task", new Task(1), JobOptions.builder().delay(Duration.ofHours(1)).build());
        execute("UPDATE {s}.jobs SET run_at = now() - interval '1 minute'");

        assertThat(first(explain(docket, id)).code()).isEqualTo(Code.NO_MAINTENANCE_LEADER);
    }

    @Test
    void aFinishedJobIsNotWaitingAndAnUnknownOneIsEmpty() {
        Docket docket = docket();
        serve(docket, "default", 1, (t, ctx) -> { });
        long id = docket.enqueue("task", new Task(1));
        JobInfo done = awaitState(docket, id, JobState.COMPLETED, WAIT);

        Reason r = first(explain(docket, id));

        assertThat(r.code()).isEqualTo(Code.FINISHED);
        assertThat(r.facts()).containsEntry("finishedAt", done.finishedAt().toString());
        assertThat(r.message()).isEqualTo("Not waiting: it completed at " + done.finishedAt() + ".");
        assertThat(docket.admin().explain(id + 1000)).isEmpty();
    }

    /** The advice to a dead job ends the sentence: the time is when it died, not when a retry would run. */
    @Test
    void aDeadJobSaysWhenItDiedThenThatARetryRunsItAgain() {
        Docket docket = docket();
        serve(docket, "default", 1, (t, ctx) -> {
            throw new PermanentJobFailure("card declined");
        });
        long id = docket.enqueue("task", new Task(1));
        JobInfo dead = awaitState(docket, id, JobState.DEAD, WAIT);

        Reason r = first(explain(docket, id));

        assertThat(r.code()).isEqualTo(Code.FINISHED);
        assertThat(r.message()).isEqualTo("Not waiting: it moved to the dead-letter table at " + dead.finishedAt()
                + " (" + dead.deadReason() + "); retry it to run it again.");
    }

    /** A running job whose worker's lease ran out (its heartbeats stopped) says the rescuer takes it back. */
    @Test
    void aRunningJobPastItsLeaseSaysTheRescuerTakesItBack() throws Exception {
        Docket docket = docket();
        serve(docket, "default", 1, holding);
        long id = docket.enqueue("task", new Task(1));
        awaitStarted();
        execute("UPDATE {s}.jobs SET lease_until = now() - interval '1 second'");

        assertThat(explain(docket, id).reasons()).extracting(Reason::code)
                .containsExactly(Code.LEASE_EXPIRED, Code.RUNNING);
    }
}
