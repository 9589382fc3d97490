package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Claiming ahead: a worker holds claimed jobs beyond its free slots only as many as it will start
 * soon, and those jobs are claimed in every sense (counted as running, fenced, cancelled and given
 * back like running ones) without ever running twice or out of their timeout.
 */
class ClaimAheadTest extends DocketTest {

    record Task(int n) {
    }

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);
    private static final int SLOTS = 2;
    private static final int AHEAD = 5;
    /** Enough quick jobs for the measured running time to forget a slow first start on a loaded machine. */
    private static final int WARM_UP = 200;

    private final Queue<Long> started = new ConcurrentLinkedQueue<>();
    private final CountDownLatch blockersGo = new CountDownLatch(1);

    /**
     * A worker with 2 slots that has measured its quick handlers, then gets two blocking jobs
     * (a lower priority number, so claimed first) and ten quick ones in one transaction.
     */
    private Worker heldAheadWorker(Docket docket, Duration lease, Duration quickTimeout) throws Exception {
        closeAfter(blockersGo::countDown);
        JobKind.Builder<Task> quickKind = JobKind.of("quick", Task.class);
        if (quickTimeout != null) {
            quickKind.timeout(quickTimeout);
        }
        JobKind<Task> quick = quickKind.build();
        Worker worker = worker(docket, w -> w.queue("default", SLOTS).claimAhead(AHEAD).lease(lease)
                .shutdownGrace(Duration.ZERO)
                .handler(quick, (t, ctx) -> started.add(ctx.jobId()))
                .handler("block", Task.class, (t, ctx) -> {
                    started.add(ctx.jobId());
                    blockersGo.await();
                }));
        List<Long> warmUp = docket.enqueueAll(IntStream.range(0, WARM_UP).mapToObj(i -> NewJob.of("quick", new Task(i))).toList());
        await().atMost(Duration.ofSeconds(10)).until(() -> started.containsAll(warmUp));
        started.clear();
        List<NewJob> jobs = new ArrayList<>();
        jobs.add(NewJob.of("block", new Task(1), JobOptions.builder().priority(-10).build()));
        jobs.add(NewJob.of("block", new Task(2), JobOptions.builder().priority(-10).build()));
        IntStream.range(0, 10).forEach(i -> jobs.add(NewJob.of("quick", new Task(i))));
        docket.enqueueAll(jobs);
        await("both slots blocked and " + AHEAD + " jobs held ahead").atMost(Duration.ofSeconds(10))
                .until(() -> worker.inFlight() == SLOTS + AHEAD);
        return worker;
    }

    private long running() {
        return queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'running'");
    }

    @Test
    void shortJobsAreClaimedAheadOfFreeSlotsAndStartWhenASlotFrees() throws Exception {
        Docket docket = docket();
        heldAheadWorker(docket, LONG_LEASE, null);

        assertThat(started).as("only the blockers run").hasSize(SLOTS);
        assertThat(running()).as("held jobs are claimed: running for the database").isEqualTo(SLOTS + AHEAD);

        blockersGo.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE state = 'completed' AND attempt = 1"))
                .as("every job ran once, at its first attempt").isEqualTo(WARM_UP + 12);
    }

    @Test
    void aHigherPriorityJobWaitsBehindAtMostTheJobsHeldAhead() throws Exception {
        Docket docket = docket();
        heldAheadWorker(docket, LONG_LEASE, null);
        long urgent = docket.enqueue("quick", new Task(99), JobOptions.builder().priority(-100).build());

        blockersGo.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> started.contains(urgent));
        List<Long> order = new ArrayList<>(started);
        // The held jobs, then the urgent one; the other slot may start the next job in the same instant,
        // and its handler may record itself first. Without the claim order it would wait behind 10.
        assertThat(order.indexOf(urgent) - SLOTS).as("jobs started after the blockers and before the urgent one")
                .isLessThanOrEqualTo(AHEAD + SLOTS - 1);
    }

    @Test
    void aStoppingWorkerGivesHeldJobsBackAtOnceWithTheirAttemptNotCounted() throws Exception {
        Docket docket = docket();
        Worker worker = heldAheadWorker(docket, LONG_LEASE, null);

        worker.close();

        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'ready' AND attempt = 0 AND lease_until IS NULL"))
                .as("blockers released and held jobs given back, not after the 30 s lease").isEqualTo(12);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE errors <> '[]'::jsonb")).isZero();
        assertThat(started).as("no held job ran").hasSize(SLOTS);
    }

    @Test
    void aCancelledHeldJobLeavesWithoutRunning() throws Exception {
        Docket docket = docket();
        Worker worker = heldAheadWorker(docket, Duration.ofSeconds(3), null);
        long held = queryLong("SELECT id FROM {s}.jobs WHERE state = 'running' AND kind = 'quick' ORDER BY id DESC LIMIT 1");

        assertThat(docket.cancel(held)).isTrue();
        // The heartbeat finds the held job's lease gone and drops it: its place is claimed again.
        await("the held job dropped and replaced").atMost(Duration.ofSeconds(10))
                .until(() -> queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'ready'") == 10 - AHEAD - 1);
        assertThat(worker.inFlight()).isEqualTo(SLOTS + AHEAD);
        blockersGo.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(started).doesNotContain(held);
        assertThat(docket.job(held).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
    }

    @Test
    void aHeldJobsTimeoutCountsFromItsHandlersStartNotFromItsClaim() throws Exception {
        Docket docket = docket();
        Duration timeout = Duration.ofMillis(300);
        heldAheadWorker(docket, LONG_LEASE, timeout);

        // The held jobs wait for a slot longer than their timeout.
        await().pollDelay(timeout.multipliedBy(2)).atMost(timeout.multipliedBy(3)).until(() -> true);
        blockersGo.countDown();

        await().atMost(Duration.ofSeconds(10)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE kind = 'quick' AND state = 'completed' "
                + "AND attempt = 1")).as("no held job timed out").isEqualTo(WARM_UP + 10);
    }

    @Test
    void longJobsAreNotClaimedAhead() throws Exception {
        Docket docket = docket();
        CountDownLatch never = new CountDownLatch(1);
        Worker worker = worker(docket, w -> w.queue("default", SLOTS).claimAhead(AHEAD)
                .handler("slow", Task.class, (t, ctx) -> {
                    // Stands for a handler that works 150 ms: more than the slots start within the horizon.
                    never.await(150, TimeUnit.MILLISECONDS);
                    started.add(ctx.jobId());
                }));
        List<Long> warmUp = docket.enqueueAll(IntStream.range(0, 4).mapToObj(i -> NewJob.of("slow", new Task(i))).toList());
        await().atMost(Duration.ofSeconds(10)).until(() -> started.containsAll(warmUp));

        docket.enqueueAll(IntStream.range(0, 10).mapToObj(i -> NewJob.of("slow", new Task(i))).toList());
        await("never more claimed than slots").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> running() <= SLOTS && worker.inFlight() <= SLOTS);
    }

    @Test
    void aCappedQueueDoesNotClaimAhead() throws Exception {
        Docket docket = docket();
        docket.admin().setQueueLimits("default", 1000, null);
        Worker worker = worker(docket, w -> w.queue("default", SLOTS).claimAhead(AHEAD)
                .handler("quick", Task.class, (t, ctx) -> started.add(ctx.jobId()))
                .handler("block", Task.class, (t, ctx) -> blockersGo.await()));
        closeAfter(blockersGo::countDown);
        List<Long> warmUp = docket.enqueueAll(IntStream.range(0, WARM_UP).mapToObj(i -> NewJob.of("quick", new Task(i))).toList());
        await().atMost(Duration.ofSeconds(10)).until(() -> started.containsAll(warmUp));

        List<NewJob> jobs = new ArrayList<>(List.of(NewJob.of("block", new Task(1)), NewJob.of("block", new Task(2))));
        IntStream.range(0, 10).forEach(i -> jobs.add(NewJob.of("quick", new Task(i))));
        docket.enqueueAll(jobs);
        await().atMost(Duration.ofSeconds(10)).until(() -> running() == SLOTS);
        await("nothing held ahead under a cap").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                .until(() -> running() == SLOTS && worker.inFlight() == SLOTS);
    }
}
