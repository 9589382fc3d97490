package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Leases: per-kind lease at claim and heartbeat, heartbeats outliving the lease, rescue of a dead worker's job. */
class LeaseTest extends DocketTest {

    record Task(String name) {
    }

    /** Milliseconds from the database's now() to the job's lease_until. */
    private long leaseLeftMillis(long id) {
        return queryLong("SELECT (extract(epoch FROM lease_until - now()) * 1000)::bigint FROM {s}.jobs WHERE id = ?", id);
    }

    private long leaseUntilMicros(long id) {
        return queryLong("SELECT (extract(epoch FROM lease_until) * 1000000)::bigint FROM {s}.jobs WHERE id = ?", id);
    }

    private long dbNowMicros() {
        return queryLong("SELECT (extract(epoch FROM now()) * 1000000)::bigint");
    }

    @Test
    void aKindWithItsOwnLeaseIsClaimedAndHeartbeatWithIt() throws Exception {
        Docket docket = docket();
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        JobHandler<Task> block = (t, ctx) -> {
            started.countDown();
            release.await();
        };
        worker(docket, w -> w.queue("default", 2).lease(Duration.ofSeconds(5))
                .handler(JobKind.of("long", Task.class).lease(Duration.ofSeconds(120)).build(), block)
                .handler("short", Task.class, block));
        long longId = docket.enqueue("long", new Task("long"));
        long shortId = docket.enqueue("short", new Task("short"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        // At claim (or after a heartbeat at most a heartbeat interval, 5 s / 3, ago).
        assertThat(leaseLeftMillis(longId)).as("lease left of the kind with a 120 s lease").isBetween(115_000L, 120_000L);
        assertThat(leaseLeftMillis(shortId)).as("lease left of a kind on the worker's 5 s lease").isBetween(2_500L, 5_000L);

        // After the next heartbeat (one statement extends both), each job still has its own lease.
        long shortBefore = leaseUntilMicros(shortId);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> leaseUntilMicros(shortId) > shortBefore);
        assertThat(leaseLeftMillis(longId)).as("heartbeat of the 120 s kind").isBetween(115_000L, 120_000L);
        assertThat(leaseLeftMillis(shortId)).as("heartbeat of the worker-lease kind").isBetween(2_500L, 5_000L);

        release.countDown();
        awaitState(docket, longId, JobState.COMPLETED, Duration.ofSeconds(10));
        awaitState(docket, shortId, JobState.COMPLETED, Duration.ofSeconds(10));
    }

    @Test
    void heartbeatsKeepALongJobsLeaseAliveSoItIsNotRescued() throws Exception {
        Docket docket = docket();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean releasedByTest = new AtomicBoolean();
        AtomicInteger runs = new AtomicInteger();
        worker(docket, w -> w.queue("default", 1)
                .lease(Duration.ofSeconds(1)).heartbeatInterval(Duration.ofMillis(200))
                .maintenanceInterval(Duration.ofMillis(100))
                .handler("long", Task.class, (t, ctx) -> {
                    runs.incrementAndGet();
                    started.countDown();
                    releasedByTest.set(release.await(3, TimeUnit.SECONDS));
                }));
        long id = docket.enqueue("long", new Task("slow"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        long originalLease = leaseUntilMicros(id);

        // Wait until the lease moved forward at least twice and the database clock is well past the
        // original lease (the rescuer runs every 100 ms), with the job still on its first attempt.
        AtomicLong last = new AtomicLong(originalLease);
        AtomicInteger moves = new AtomicInteger();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(50)).until(() -> {
            JobInfo job = docket.job(id).orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.RUNNING);
            assertThat(job.attempt()).isEqualTo(1);
            long lease = leaseUntilMicros(id);
            if (lease > last.get()) {
                last.set(lease);
                moves.incrementAndGet();
            }
            return moves.get() >= 2 && dbNowMicros() > originalLease + 500_000;
        });
        release.countDown();

        JobInfo job = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(releasedByTest).as("the handler ran until the test released it").isTrue();
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.errors()).isEmpty();
        assertThat(runs).hasValue(1);
    }

    @Test
    void aJobWhoseWorkerStoppedHeartbeatingIsRescuedAndCompletedByAnotherWorker() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("task", new Task("orphan"));
        List<ClaimedJob> claimed = docket.wiring().store().claims().claim("default", 1, Duration.ofSeconds(1), Map.of(), "ghost-worker");
        assertThat(claimed).singleElement().satisfies(j -> {
            assertThat(j.id()).isEqualTo(id);
            assertThat(j.attempt()).isEqualTo(1);
        });
        JobInfo running = docket.job(id).orElseThrow();
        assertThat(running.state()).isEqualTo(JobState.RUNNING);
        assertThat(running.lockedBy()).isEqualTo("ghost-worker");

        List<Integer> attempts = new CopyOnWriteArrayList<>();
        Worker worker = worker(docket, w -> w.queue("default", 1)
                .lease(Duration.ofSeconds(1)).maintenanceInterval(Duration.ofMillis(100))
                .handler("task", Task.class, (t, ctx) -> attempts.add(ctx.attempt())));

        JobInfo done = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(attempts).containsExactly(2);
        assertThat(done.errors()).singleElement().satisfies(e -> {
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.message()).isEqualTo("lease expired: worker ghost-worker lost its lease");
            assertThat(e.worker()).isEqualTo("ghost-worker");
            assertThat(e.at()).as("rescued only after the lease expired").isAfterOrEqualTo(claimed.getFirst().leaseUntil());
        });
        assertThat(worker.isLeader()).isTrue();
    }
}
