package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import dev.docket.testing.HookedDataSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Workers register themselves: a row at start, heartbeats, gone at a graceful stop, pruned when long dead. */
class WorkerRegistryTest extends DocketTest {

    record Task(int n) {
    }

    @Test
    void aStartedWorkerIsRegisteredWithItsQueuesKindsAndPool() {
        Docket docket = docket();
        Worker worker = worker(docket, w -> w.queue("default", 4).queue("email", 2)
                .handler("send", Task.class, (t, ctx) -> { })
                .handler(JobKind.of("render", Task.class).payloadVersion(3).build(), (t, ctx) -> { }));

        List<WorkerInfo> workers = docket.admin().workers();

        assertThat(workers).hasSize(1);
        WorkerInfo info = workers.getFirst();
        assertThat(info.id()).isEqualTo(worker.workerId());
        assertThat(info.queues()).isEqualTo(Map.of("default", 4, "email", 2));
        assertThat(info.kinds()).isEqualTo(Map.of("send", 1, "render", 3));
        assertThat(info.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(info.live()).isTrue();
        assertThat(info.connectionsNeeded()).isEqualTo(8);
        assertThat(info.poolSize()).isEqualTo(40);
        assertThat(info.version()).isNotBlank();
        assertThat(info.serves("email", "render")).isTrue();
        assertThat(info.serves("other", "render")).isFalse();
        assertThat(info.serves("email", "nope")).isFalse();
        assertThat(info.concurrency()).isEqualTo(6);
    }

    /**
     * Each heartbeat writes what the worker is doing: handlers running now (two blocked handlers of four
     * slots), and attempts finished and failed in the last minute (three completed, two failed); what
     * the workers view shows without scraping the worker.
     */
    @Test
    void eachHeartbeatWritesTheHandlersRunningAndTheAttemptsOfTheLastMinute() throws Exception {
        Docket docket = docket(b -> b.defaultRetryPolicy(new RetryPolicy(5, Duration.ofHours(1), Duration.ofHours(1), 0)));
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(2);
        for (int i = 0; i < 3; i++) {
            docket.enqueue("quick", new Task(i));
        }
        for (int i = 0; i < 2; i++) {
            docket.enqueue("fails", new Task(i));
        }
        Worker worker = worker(docket, w -> w.queue("default", 4).lease(Duration.ofSeconds(1))
                .handler("quick", Task.class, (t, ctx) -> { })
                .handler("fails", Task.class, (t, ctx) -> {
                    throw new IllegalStateException("boom");
                })
                .handler("blocks", Task.class, (t, ctx) -> {
                    blocked.countDown();
                    release.await();
                }));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queryLong(
                "SELECT count(*) FROM {s}.jobs WHERE kind = 'quick' OR (kind = 'fails' AND state = 'running')") == 0);
        docket.enqueue("blocks", new Task(1));
        docket.enqueue("blocks", new Task(2));
        assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
        try {
            WorkerInfo busy = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> docket.admin().workers().getFirst(), w -> w.handlersRunning() == 2);
            assertThat(busy.id()).isEqualTo(worker.workerId());
            assertThat(busy.finishedLastMinute()).isEqualTo(5);
            assertThat(busy.failedLastMinute()).isEqualTo(2);
            assertThat(busy.running()).isEqualTo(2);
        } finally {
            release.countDown();
        }
        WorkerInfo idle = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> docket.admin().workers().getFirst(), w -> w.handlersRunning() == 0);
        assertThat(idle.finishedLastMinute()).isEqualTo(7);
        assertThat(idle.failedLastMinute()).isEqualTo(2);
    }

    @Test
    void heartbeatsMoveForwardAndAGracefulStopRemovesTheRow() {
        Docket docket = docket();
        Worker worker = docket.worker().queue("default", 1).lease(Duration.ofSeconds(1))
                .handler("send", Task.class, (t, ctx) -> { }).start();
        WorkerInfo first = docket.admin().workers().getFirst();
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> docket.admin().workers().getFirst().heartbeatAt().isAfter(first.heartbeatAt()));
        assertThat(docket.admin().workers().getFirst().startedAt()).isEqualTo(first.startedAt());

        worker.close();

        assertThat(docket.admin().workers()).isEmpty();
    }

    /** A worker whose heartbeats stop (here: it cannot reach the database) stays listed, no longer live. */
    @Test
    void aWorkerWhoseHeartbeatsStopIsListedAsNotLive() {
        AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));
        Docket gated = docket(b -> Docket.builder(HookedDataSource.gated(dataSource(), gate)).schema(schema));
        Docket observer = docket();
        Worker worker = gated.worker().queue("default", 1).lease(Duration.ofSeconds(1)).maintenance(false)
                .handler("send", Task.class, (t, ctx) -> { }).start();
        try {
            gate.set(new CountDownLatch(1));
            WorkerInfo stopped = Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> observer.admin().workers().getFirst(), w -> !w.live());
            assertThat(stopped.id()).isEqualTo(worker.workerId());
            assertThat(stopped.serves("default", "send")).isFalse();
        } finally {
            gate.get().countDown();
            worker.close();
        }
    }

    /** Rows dead for an hour are pruned by the next registration of any worker. */
    @Test
    void rowsDeadForAnHourArePrunedByAnotherWorkersRound() {
        Docket docket = docket();
        execute("INSERT INTO {s}.workers (id, host, pid, queues, kinds, version, connections_needed, listen, listening, "
                + "heartbeat_interval_ms, heartbeat_at) VALUES ('gone', 'h', 1, '{}', '{}', 'v', 7, true, true, 1000, "
                + "now() - interval '61 minutes'), ('recent', 'h', 2, '{}', '{}', 'v', 7, true, true, 1000, "
                + "now() - interval '59 minutes')");

        worker(docket, w -> w.queue("default", 1).handler("send", Task.class, (t, ctx) -> { }));

        assertThat(docket.admin().workers()).extracting(WorkerInfo::id).doesNotContain("gone").contains("recent");
    }
}
