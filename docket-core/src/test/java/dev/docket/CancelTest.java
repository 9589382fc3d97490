package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link Docket#cancel(long)} of waiting, running, finished and unknown jobs. */
class CancelTest extends DocketTest {

    record Task(String name) {
    }

    @Test
    void aCancelledReadyJobNeverRuns() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("task", new Task("cancel me"));
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);

        assertThat(docket.cancel(id)).isTrue();

        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.CANCELLED);
        assertThat(job.attempt()).isZero();
        assertThat(job.finishedAt()).isNotNull();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ?", id)).isZero();
        assertThat(docket.cancel(id)).as("a second cancel finds no live job").isFalse();

        CountDownLatch cancelledRan = new CountDownLatch(1);
        CountDownLatch controlRan = new CountDownLatch(1);
        worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofMillis(100))
                .handler("task", Task.class, (t, ctx) -> {
                    if (ctx.jobId() == id) {
                        cancelledRan.countDown();
                    } else {
                        controlRan.countDown();
                    }
                }));
        long control = docket.enqueue("task", new Task("control"));
        assertThat(controlRan.await(10, TimeUnit.SECONDS)).as("the worker runs jobs").isTrue();
        awaitState(docket, control, JobState.COMPLETED, Duration.ofSeconds(10));

        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(2))
                .until(() -> cancelledRan.getCount() == 1 && docket.job(id).orElseThrow().state() == JobState.CANCELLED);
    }

    @Test
    void aScheduledJobCanBeCancelled() {
        Docket docket = docket();
        long id = docket.enqueue("task", new Task("later"), JobOptions.builder().delay(Duration.ofHours(1)).build());
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);

        assertThat(docket.cancel(id)).isTrue();

        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id = ? AND state = 'cancelled'", id))
                .isEqualTo(1);
    }

    @Test
    void cancellingAnUnknownJobReturnsFalse() {
        Docket docket = docket();
        long other = docket.enqueue("task", new Task("bystander"));

        assertThat(docket.cancel(other + 1000)).isFalse();
        assertThat(docket.cancel(-1)).isFalse();
        assertThat(docket.job(other).orElseThrow().state()).as("no other job is touched").isEqualTo(JobState.READY);
    }

    @Test
    void cancellingACompletedJobReturnsFalseAndLeavesItCompleted() {
        Docket docket = docket();
        worker(docket, w -> w.queue("default", 1)
                .handler("task", Task.class, (t, ctx) -> {
                }));
        long id = docket.enqueue("task", new Task("done"));
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));

        assertThat(docket.cancel(id)).isFalse();

        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id = ?", id)).isEqualTo(1);
    }

    @Test
    void cancellingARunningJobInterruptsItsHandlerAndDiscardsItsOutcome() throws Exception {
        Docket docket = docket();
        Duration heartbeat = Duration.ofMillis(200);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicBoolean interruptedAfterCancel = new AtomicBoolean();
        ConcurrentHashMap<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        Worker worker = worker(docket, w -> w.queue("default", 1)
                .lease(Duration.ofSeconds(1)).heartbeatInterval(heartbeat)
                .maintenanceInterval(Duration.ofMillis(100)).pollInterval(Duration.ofMillis(100))
                .handler("block", Task.class, (t, ctx) -> {
                    runs.computeIfAbsent(ctx.jobId(), k -> new AtomicInteger()).incrementAndGet();
                    started.countDown();
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        interruptedAfterCancel.set(cancelled.get());
                        interrupted.countDown();
                    }
                    // Returns normally: a "completed" outcome that must be discarded.
                    returned.countDown();
                })
                .handler("task", Task.class, (t, ctx) -> runs.computeIfAbsent(ctx.jobId(), k -> new AtomicInteger())
                        .incrementAndGet()));
        long id = docket.enqueue("block", new Task("long"));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.RUNNING);

        cancelled.set(true);
        assertThat(docket.cancel(id)).isTrue();

        // Nothing else would interrupt the handler: its lease is renewed and it has no timeout.
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("the handler was interrupted").isTrue();
        assertThat(interruptedAfterCancel).as("interrupted by the cancel, not before it").isTrue();
        assertThat(returned.await(5, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> worker.inFlight() == 0);

        // The slot is free again and the worker still runs jobs.
        long next = docket.enqueue("task", new Task("next"));
        awaitState(docket, next, JobState.COMPLETED, Duration.ofSeconds(10));

        // Never retried, never rescued, never completed by the stale outcome.
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3)).until(() -> {
            JobInfo job = docket.job(id).orElseThrow();
            return job.state() == JobState.CANCELLED && job.attempt() == 1 && runs.get(id).get() == 1;
        });
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.errors()).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ?", id)).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id = ?", id)).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id = ? AND state = 'cancelled'", id))
                .isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = ?", id)).isZero();
    }
}
