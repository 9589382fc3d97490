package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.internal.completer.Completer;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.observe.JobObserver;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Graceful shutdown: stop claiming, let handlers finish within the grace period, interrupt the rest
 * and give their jobs back at once (not after the lease), write every outcome, and never leave a
 * job running behind a closed worker.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShutdownTest extends DocketTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    record Task(int n) {
    }

    /** Runs {@code action} on a platform thread of its own (not the common pool, which has one thread here). */
    private static CompletableFuture<Void> async(Runnable action) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread.ofPlatform().name("shutdown-test-closer").start(() -> {
            try {
                action.run();
                f.complete(null);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    /** Closes {@code worker} from another thread; a close() that has not returned after 30 s has hung. */
    private static void closeOnAnotherThread(Worker worker) throws Exception {
        async(worker::close).get(30, TimeUnit.SECONDS);
    }

    /** When the job's lease ends, by the database's clock, in microseconds since the epoch. */
    private long leaseEndMicros(long id) {
        return queryLong("SELECT (extract(epoch FROM lease_until) * 1000000)::bigint FROM {s}.jobs WHERE id = ?", id);
    }

    @Test
    void closeReleasesAnUnfinishedJobAtOnceAndGivesItsAttemptBack() throws Exception {
        Docket docket = docket();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Worker worker = worker(docket, w -> w
                .queue("default", 2)
                .lease(LONG_LEASE)
                .shutdownGrace(Duration.ofMillis(200))
                .handler("block", Task.class, (task, ctx) -> {
                    started.countDown();
                    try {
                        never.await();
                    } catch (InterruptedException e) {
                        interrupted.set(true);
                        throw e;
                    }
                }));
        long id = docket.enqueue("block", new Task(1));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
        long leaseEnd = leaseEndMicros(id);

        closeOnAnotherThread(worker);

        assertThat(interrupted).as("handler interrupted").isTrue();
        assertThat(queryLong("SELECT CASE WHEN now() < to_timestamp(? / 1e6) THEN 1 ELSE 0 END", leaseEnd))
                .as("close() returned before the job's 30 s lease ran out").isOne();
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).as("released by close(), not rescued after the lease").isEqualTo(JobState.READY);
        assertThat(job.attempt()).as("the interrupted attempt is given back").isZero();
        assertThat(job.lockedBy()).isNull();
        assertThat(job.errors()).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ? AND lease_until IS NULL", id)).isEqualTo(1);
        assertThat(worker.inFlight()).isZero();
    }

    @Test
    void aHandlerThatIgnoresInterruptsIsReleasedAnywayAndItsLateOutcomeIsFencedOut() throws Exception {
        Docket docket = docket();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        AtomicInteger interrupts = new AtomicInteger();
        closeAfter(letGo::countDown);
        Worker stubborn = worker(docket, w -> w
                .workerId("stubborn-1")
                .queue("default", 1)
                .lease(LONG_LEASE)
                .shutdownGrace(Duration.ofMillis(200))
                .handler("stubborn", Task.class, (task, ctx) -> {
                    started.countDown();
                    try {
                        while (letGo.getCount() > 0) {
                            try {
                                letGo.await();
                            } catch (InterruptedException swallowed) {
                                interrupts.incrementAndGet();
                            }
                        }
                    } finally {
                        returned.countDown();
                    }
                }));
        long id = docket.enqueue("stubborn", new Task(1));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        closeOnAnotherThread(stubborn);

        assertThat(interrupts.get()).isPositive();
        assertThat(returned.getCount()).as("close() returned while the handler is still running").isEqualTo(1);
        JobInfo released = docket.job(id).orElseThrow();
        assertThat(released.state()).isEqualTo(JobState.READY);
        assertThat(released.attempt()).as("an abandoned attempt keeps its number: it may still be running").isEqualTo(1);
        assertThat(released.lockedBy()).isNull();

        // The abandoned attempt can no longer write its outcome: its fence does not match.
        assertThat(docket.wiring().store().outcomes().writeOutcomes("stubborn-1",
                List.of(new Outcome.Completed(new Fence(id, 1), null)), true)).isEmpty();
        letGo.countDown();
        assertThat(returned.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);

        // The next worker gets it with a new attempt number: a distinct idempotency key from the abandoned run.
        Queue<String> ranBy = new ConcurrentLinkedQueue<>();
        worker(docket, w -> w
                .workerId("fresh-2")
                .queue("default", 1)
                .handler("stubborn", Task.class, (task, ctx) -> ranBy.add("fresh-2/" + ctx.attempt())));
        JobInfo done = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(ranBy).containsExactly("fresh-2/2");
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.errors()).isEmpty();
    }

    @Test
    void jobsThatFinishWithinTheGraceAreCompletedNotReleased() throws Exception {
        Docket docket = docket();
        int n = 5;
        CountDownLatch started = new CountDownLatch(n);
        CountDownLatch finish = new CountDownLatch(1);
        Worker worker = worker(docket, w -> w
                .queue("default", n)
                .lease(LONG_LEASE)
                .shutdownGrace(Duration.ofSeconds(5))
                .handler("work", Task.class, (task, ctx) -> {
                    started.countDown();
                    finish.await();
                }));
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            jobs.add(NewJob.of("work", new Task(i)));
        }
        List<Long> ids = docket.enqueueAll(jobs);
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> closing = async(worker::close);
        // close() waits for running handlers: the handlers take ~100 ms more after it was called.
        await("close() waits for the handlers").during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2))
                .until(() -> !closing.isDone());
        finish.countDown();
        closing.get(10, TimeUnit.SECONDS);

        for (long id : ids) {
            JobInfo job = docket.job(id).orElseThrow();
            assertThat(job.state()).as("job %d right after close()", id).isEqualTo(JobState.COMPLETED);
            assertThat(job.attempt()).isEqualTo(1);
            assertThat(job.errors()).isEmpty();
        }
    }

    /**
     * The order that keeps a shutdown from losing an outcome: a handler's outcome reaches the
     * completer before its slot is freed. The other way round, a handler that returns during close()
     * and is descheduled between the two would let close() see every slot free, stop the completer
     * with nothing pending, and leave the job RUNNING until its lease expired and it ran again. The
     * seam is the executor's own callback for "handler done", which the producer uses to free the
     * slot: at that moment the outcome must already be pending in the completer (which is not started
     * here, so it stays pending).
     */
    @Test
    void aHandlersOutcomeReachesTheCompleterBeforeItsSlotIsFreed() throws Exception {
        Completer completer = new Completer(null, "w", true, false, 10, Duration.ZERO);
        InFlight inFlight = new InFlight();
        JobHandler<Task> handler = (task, ctx) -> { };
        JobExecutor executor = new JobExecutor(
                Map.of("work", new HandlerBinding<>(JobKind.of("work", Task.class).build(), handler, RetryPolicy.defaults())),
                kind -> RetryPolicy.defaults(), new PayloadCodec(PayloadCodec.defaultMapper(), 1 << 20),
                completer, new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper()), inFlight, "w",
                JobObserver.NONE, true);
        closeAfter(executor);
        CompletableFuture<Long> pendingWhenSlotFreed = new CompletableFuture<>();

        executor.start(executor.hold(new ClaimedJob(1, "default", "work", "{\"n\":1}", 1, 0, Instant.EPOCH, 1, 3,
                null, null, Instant.EPOCH, null)), () -> pendingWhenSlotFreed.complete(completer.backlog()), () -> { });

        assertThat(pendingWhenSlotFreed.get(10, TimeUnit.SECONDS))
                .as("outcomes pending in the completer when the slot is freed").isEqualTo(1);
    }

    @Test
    void aClosedWorkerClaimsNothing() throws Exception {
        Docket docket = docket();
        AtomicInteger runs = new AtomicInteger();
        Worker worker = worker(docket, w -> w
                .queue("default", 2)
                .pollInterval(Duration.ofMillis(100))
                .handler("work", Task.class, (task, ctx) -> runs.incrementAndGet()));
        await().atMost(Duration.ofSeconds(5)).until(worker::isListening);
        worker.close();

        long id = docket.enqueue("work", new Task(1));

        await("job stays ready after close").during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(4))
                .until(() -> docket.job(id).orElseThrow().state() == JobState.READY);
        assertThat(runs).hasValue(0);
        assertThat(worker.inFlight()).isZero();
    }

    @Test
    void aClosedWorkerNoLongerReportsListening() {
        Docket docket = docket();
        Worker worker = worker(docket, w -> w
                .queue("default", 1)
                .handler("work", Task.class, (task, ctx) -> { }));
        await().atMost(Duration.ofSeconds(5)).until(worker::isListening);
        int pid = worker.listenerBackendPid();

        worker.close();

        assertThat(worker.listenerBackendPid()).isEqualTo(-1);
        assertThat(queryLong("SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND query ILIKE 'LISTEN%'", pid))
                .as("the listener connection no longer listens").isZero();
        assertThat(worker.isListening()).as("isListening() after close()").isFalse();
    }

    @Test
    void startingAndClosingWorkersRepeatedlyWhileJobsFlowLosesNothing() throws Exception {
        Docket docket = docket();
        int rounds = 20;
        int cap = 20_000;
        ConcurrentHashMap<Long, AtomicInteger> runs = new ConcurrentHashMap<>();
        AtomicInteger executions = new AtomicInteger();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Long> enqueued = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        Thread enqueuer = Thread.ofPlatform().name("stress-enqueuer").start(() -> {
            try {
                for (int i = 0; i < cap && !stop.get(); i++) {
                    enqueued.add(docket.enqueue("work", new Task(i)));
                }
            } catch (Throwable e) {
                failures.add(e);
            }
        });
        JobHandler<Task> handler = (task, ctx) -> {
            runs.computeIfAbsent(ctx.jobId(), k -> new AtomicInteger()).incrementAndGet();
            executions.incrementAndGet();
        };

        for (int round = 0; round < rounds; round++) {
            Worker worker = docket.worker()
                    .queue("default", 4)
                    .lease(LONG_LEASE)
                    .pollInterval(Duration.ofMillis(50))
                    .shutdownGrace(Duration.ofSeconds(5))
                    .handler("work", Task.class, handler)
                    .start();
            int before = executions.get();
            try {
                // Let each worker run a few jobs (the enqueuer keeps producing them) before closing it.
                await().atMost(Duration.ofSeconds(10)).until(() -> executions.get() >= before + 3);
            } finally {
                worker.close();
                worker.close();
            }
            assertThat(worker.inFlight()).as("round %d", round).isZero();
        }
        stop.set(true);
        enqueuer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(failures).isEmpty();

        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'running'"))
                .as("jobs left running behind closed workers").isZero();

        // Whatever the stress left ready runs to completion on one more worker, exactly once each.
        worker(docket, w -> w.queue("default", 8).handler("work", Task.class, handler));
        int n = enqueued.size();
        await().atMost(Duration.ofSeconds(30)).until(() -> queryLong("SELECT count(*) FROM {s}.job_history") == n);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(DISTINCT id) FROM {s}.job_history")).isEqualTo(n);
        assertThat(runs.keySet()).containsExactlyInAnyOrderElementsOf(enqueued);
        assertThat(runs.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
        System.out.printf("ShutdownTest: %d workers started and closed, %d jobs, %d executions%n",
                rounds, n, executions.get());
    }
}
