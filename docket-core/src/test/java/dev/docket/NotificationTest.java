package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import dev.docket.testing.HookedDataSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Enqueue notifications: an idle worker whose next poll is an hour away picks new jobs up, so
 * LISTEN/NOTIFY woke it (also after its listener connection was killed); notifications are delivered
 * at commit; the rate limit never strands the last jobs of a burst.
 */
class NotificationTest extends DocketTest {

    /** Long enough that no poll comes during a test: a pickup can only come from a notification. */
    private static final Duration LONG_POLL = Duration.ofHours(1);
    /** How long a test waits for what must happen before it calls it lost (never reached when all is well). */
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration STAY_PUT = Duration.ofMillis(1500);

    record Ping(int n) {
    }

    /** Records when each job's handler first started (System.nanoTime). */
    static final class Recorder {
        final ConcurrentHashMap<Long, Long> startedAt = new ConcurrentHashMap<>();

        JobHandler<Ping> handler() {
            return (ping, ctx) -> startedAt.putIfAbsent(ctx.jobId(), System.nanoTime());
        }

        boolean ran(long id) {
            return startedAt.containsKey(id);
        }
    }

    private Worker listeningWorker(Docket docket, Recorder recorder) {
        return worker(docket, w -> w
                .queue("default", 4)
                .pollInterval(LONG_POLL)
                .handler("ping", Ping.class, recorder.handler()));
    }

    /**
     * Waits until the worker listens, then runs one warm-up job through it (enqueued after LISTEN,
     * so it is picked up by a notification) and waits for its completion, so that the claims that
     * start-up and the re-listen trigger are over before the job under test is enqueued.
     */
    private void awaitListeningAndIdle(Docket enqueuer, Docket docket, Worker worker, Recorder recorder) {
        await("worker listening").atMost(WAIT).until(worker::isListening);
        long warmUp = enqueuer.enqueue("ping", new Ping(0));
        await("warm-up job picked up").atMost(WAIT).pollInterval(Duration.ofMillis(10))
                .until(() -> recorder.ran(warmUp));
        awaitState(docket, warmUp, JobState.COMPLETED, WAIT);
    }

    /**
     * Starts a worker without LISTEN and with its poll an hour away, and waits until it ran a warm-up job
     * enqueued before its start (so its first claim is over): nothing but an in-process wake-up can
     * make it claim within the test now.
     */
    private void startIdleWorkerThatNeitherListensNorPolls(Docket docket, Recorder recorder) {
        long warmUp = docket.enqueue("ping", new Ping(0));
        worker(docket, w -> w
                .queue("default", 4)
                .listen(false)
                .pollInterval(LONG_POLL)
                .handler("ping", Ping.class, recorder.handler()));
        await().atMost(WAIT).until(() -> recorder.ran(warmUp));
        awaitState(docket, warmUp, JobState.COMPLETED, WAIT);
    }

    /** Enqueues a job and waits until its handler started (printing how long that took). */
    private void enqueueAndAwaitPickup(Docket docket, Recorder recorder, String what) {
        long t0 = System.nanoTime();
        long id = docket.enqueue("ping", new Ping(1));
        await(what).atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> recorder.ran(id));
        System.out.printf("NotificationTest: pickup latency %s: %.1f ms%n", what, (recorder.startedAt.get(id) - t0) / 1e6);
    }

    @Test
    void idleListeningWorkerPicksUpANewJobWithItsPollAnHourAway() {
        Docket docket = docket();
        Docket producer = docket();
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(docket, recorder);
        awaitListeningAndIdle(producer, docket, worker, recorder);

        enqueueAndAwaitPickup(producer, recorder, "idle worker, poll an hour away");
    }

    @Test
    void listenerReconnectsAfterItsBackendIsTerminatedAndNotificationsStillWork() {
        Docket docket = docket();
        Docket producer = docket();
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(docket, recorder);
        awaitListeningAndIdle(producer, docket, worker, recorder);
        int oldPid = worker.listenerBackendPid();
        assertThat(oldPid).isPositive();

        assertThat(queryLong("SELECT CASE WHEN pg_terminate_backend(?) THEN 1 ELSE 0 END", oldPid)).isEqualTo(1);

        await("listener back with a new connection").atMost(WAIT)
                .until(() -> worker.isListening() && worker.listenerBackendPid() > 0
                        && worker.listenerBackendPid() != oldPid);
        assertThat(queryLong("SELECT count(*) FROM pg_stat_activity WHERE pid = ?", worker.listenerBackendPid()))
                .isEqualTo(1);
        awaitListeningAndIdle(producer, docket, worker, recorder);

        enqueueAndAwaitPickup(producer, recorder, "after the listener was killed");
    }

    @Test
    void jobsEnqueuedWhileTheListenerIsDownArePickedUpWhenItReconnects() throws Exception {
        Docket enqueuer = docket();
        // The worker's connections pass a gate, so that the listener stays down until the test says.
        AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));
        DataSource gated = HookedDataSource.gated(dataSource(), gate);
        Docket docket = closeAfter(Docket.builder(gated).schema(schema).build());
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(docket, recorder);
        closeAfter(() -> gate.get().countDown());
        awaitListeningAndIdle(enqueuer, docket, worker, recorder);
        int oldPid = worker.listenerBackendPid();

        gate.set(new CountDownLatch(1));
        assertThat(queryLong("SELECT CASE WHEN pg_terminate_backend(?) THEN 1 ELSE 0 END", oldPid)).isEqualTo(1);
        await("listener noticed its connection is gone").atMost(WAIT).until(() -> !worker.isListening());
        // Nobody listens now: this job's notification is lost; the re-listen must poll for it.
        long id = enqueuer.enqueue("ping", new Ping(1));
        assertThat(worker.isListening()).isFalse();
        long t0 = System.nanoTime();
        gate.get().countDown();

        await("job enqueued while the listener was down").atMost(WAIT).pollInterval(Duration.ofMillis(5))
                .until(() -> recorder.ran(id));
        System.out.printf("NotificationTest: pickup of a job enqueued while the listener was down, "
                + "%.1f ms after the listener could reconnect%n", (recorder.startedAt.get(id) - t0) / 1e6);
        assertThat(worker.isListening()).isTrue();
        assertThat(worker.listenerBackendPid()).isNotEqualTo(oldPid);
    }

    /**
     * Schema names may have 63 characters; NOTIFY channel names may not (NAMEDATALEN - 1 bytes), so
     * the channel derived from the schema must stay within the limit: enqueue and pickup work.
     */
    @Test
    void aSchemaWithALongNameEnqueuesAndWakesWorkers() {
        String longSchema = (schema + "_" + "x".repeat(63)).substring(0, 63);
        closeAfter(() -> db.execute("DROP SCHEMA IF EXISTS " + longSchema + " CASCADE"));
        Docket docket = closeAfter(Docket.builder(dataSource()).schema(longSchema).build());
        docket.migrate();
        Docket producer = closeAfter(Docket.builder(dataSource()).schema(longSchema).build());
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(docket, recorder);

        awaitListeningAndIdle(producer, docket, worker, recorder);
        enqueueAndAwaitPickup(producer, recorder, "63-character schema name");
    }

    @Test
    void withoutListeningAShortPollPicksJobsUp() {
        Docket docket = docket();
        Docket producer = docket();
        Recorder recorder = new Recorder();
        long warmUp = docket.enqueue("ping", new Ping(0));
        Worker worker = worker(docket, w -> w
                .queue("default", 4)
                .listen(false)
                .pollInterval(Duration.ofMillis(200))
                .handler("ping", Ping.class, recorder.handler()));
        // The warm-up job was there before start: once it ran, the first claim is over.
        await().atMost(WAIT).until(() -> recorder.ran(warmUp));
        assertThat(worker.isListening()).isFalse();

        long t0 = System.nanoTime();
        long id = producer.enqueue("ping", new Ping(1));
        await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(() -> recorder.ran(id));
        System.out.printf("NotificationTest: pickup latency by a 200 ms poll: %.1f ms%n",
                (recorder.startedAt.get(id) - t0) / 1e6);
    }

    @Test
    void withoutListeningAndThePollAnHourAwayANewJobWaits() {
        Docket docket = docket();
        Docket producer = docket();
        Recorder recorder = new Recorder();
        startIdleWorkerThatNeitherListensNorPolls(docket, recorder);

        long id = producer.enqueue("ping", new Ping(1));

        await("job stays ready without a listener").during(STAY_PUT).atMost(WAIT)
                .until(() -> docket.job(id).orElseThrow().state() == JobState.READY && !recorder.ran(id));
    }

    @Test
    void enqueueInACallerTransactionWakesTheWorkerAtCommitNotBefore() throws Exception {
        Docket docket = docket();
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(docket, recorder);
        awaitListeningAndIdle(docket, docket, worker, recorder);

        long id;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            id = docket.enqueue(tx, "ping", new Ping(1), JobOptions.defaults());
            await("not run before commit").during(Duration.ofSeconds(1)).atMost(WAIT)
                    .until(() -> !recorder.ran(id) && docket.job(id).isEmpty());
            long t0 = System.nanoTime();
            tx.commit();
            await("run after commit").atMost(WAIT).pollInterval(Duration.ofMillis(5))
                    .until(() -> recorder.ran(id));
            System.out.printf("NotificationTest: pickup latency after commit: %.1f ms%n",
                    (recorder.startedAt.get(id) - t0) / 1e6);
        }
        awaitState(docket, id, JobState.COMPLETED, WAIT);
    }

    /**
     * The same inside the notification rate-limit window: an enqueue in an open transaction that
     * follows another enqueue of its queue within the window must still wake the worker when it
     * commits. A rate-limited notification that fires on another connection before the commit
     * wakes the worker too early (it finds nothing) and the job then waits for the poll.
     */
    @Test
    void enqueueInACallerTransactionWithinTheNotifyWindowStillWakesTheWorkerAtCommit() throws Exception {
        Docket docket = docket(b -> b.notifyWindow(Duration.ofMillis(200)));
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(docket, recorder);
        awaitListeningAndIdle(docket, docket, worker, recorder);

        long first = docket.enqueue("ping", new Ping(1));
        long id;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            id = docket.enqueue(tx, "ping", new Ping(2), JobOptions.defaults());
            // Held open well past the 200 ms window.
            await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> !recorder.ran(id));
            assertThat(recorder.ran(first)).as("the job enqueued before the transaction ran").isTrue();
            long t0 = System.nanoTime();
            tx.commit();
            await("job enqueued in the window runs after commit").atMost(WAIT)
                    .pollInterval(Duration.ofMillis(5)).until(() -> recorder.ran(id));
            System.out.printf("NotificationTest: pickup latency after commit within the notify window: %.1f ms%n",
                    (recorder.startedAt.get(id) - t0) / 1e6);
        }
    }

    @Test
    void withNotifyOnEnqueueOffAListeningWorkerIsNotWoken() {
        Docket silent = docket(b -> b.notifyOnEnqueue(false));
        Docket notifying = docket();
        Docket workerSide = docket();
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(workerSide, recorder);
        // The warm-up comes from a notifying instance: it proves the worker listens.
        awaitListeningAndIdle(notifying, silent, worker, recorder);

        long id = silent.enqueue("ping", new Ping(1));

        await("job stays ready without a notification").during(STAY_PUT).atMost(WAIT)
                .until(() -> silent.job(id).orElseThrow().state() == JobState.READY && !recorder.ran(id));
    }

    @Test
    void aBurstOfEnqueuesIsPickedUpCompletelyDespiteRateLimitedNotifications() {
        Docket docket = docket();
        Docket producer = docket();
        Recorder recorder = new Recorder();
        Worker worker = listeningWorker(docket, recorder);
        awaitListeningAndIdle(producer, docket, worker, recorder);

        int n = 200;
        List<Long> ids = new ArrayList<>(n);
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            ids.add(producer.enqueue("ping", new Ping(i)));
        }
        long enqueued = System.nanoTime();

        await("all " + n + " jobs of the burst run").atMost(WAIT).pollInterval(Duration.ofMillis(10))
                .until(() -> ids.stream().allMatch(recorder::ran));
        long last = ids.stream().mapToLong(recorder.startedAt::get).max().orElseThrow();
        System.out.printf("NotificationTest: burst of %d enqueued in %.0f ms, last started %.0f ms after the last enqueue%n",
                n, (enqueued - t0) / 1e6, (last - enqueued) / 1e6);
        await().atMost(WAIT).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
    }

    /**
     * A worker started from the Docket that enqueues (one service that both produces and works) is
     * woken in-process when the enqueue commits, without a notification: here it neither listens nor
     * polls within the test, and both a single enqueue and a batch still run at once. An enqueue in the
     * caller's transaction is not: its commit is the caller's, so only its notification can say when.
     */
    @Test
    void anEnqueueThroughTheWorkersOwnDocketWakesItInProcess() throws Exception {
        Docket docket = docket();
        Recorder recorder = new Recorder();
        startIdleWorkerThatNeitherListensNorPolls(docket, recorder);

        long t0 = System.nanoTime();
        long single = docket.enqueue("ping", new Ping(1));
        await("single enqueue woke the worker").atMost(WAIT).pollInterval(Duration.ofMillis(5))
                .until(() -> recorder.ran(single));
        System.out.printf("NotificationTest: in-process pickup latency: %.1f ms%n",
                (recorder.startedAt.get(single) - t0) / 1e6);
        List<Long> batch = docket.enqueueAll(List.of(NewJob.of("ping", new Ping(2)), NewJob.of("ping", new Ping(3))));
        await("batch enqueue woke the worker").atMost(WAIT).pollInterval(Duration.ofMillis(5))
                .until(() -> batch.stream().allMatch(recorder::ran));

        long inTx;
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            inTx = docket.enqueue(tx, "ping", new Ping(4), JobOptions.defaults());
            tx.commit();
        }
        await("caller-transaction enqueue waits for a notification or the poll").during(STAY_PUT).atMost(WAIT).until(() -> !recorder.ran(inTx));
    }
}
