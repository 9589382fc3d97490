package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.docket.testing.DocketTest;
import dev.docket.testing.HookedDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A pool too small must not stall silently (good_job #523/#669): a worker that could make no
 * progress refuses to start with a message that says what to do; a small pool that can make
 * progress works; a pool that hides its size and has no connection to give shows in health.
 */
class WorkerPoolTest extends DocketTest {

    record Task(int n) {
    }

    private Docket docketOn(javax.sql.DataSource dataSource) {
        Docket docket = closeAfter(Docket.builder(dataSource).schema(schema).build());
        docket.migrate();
        return docket;
    }

    @Test
    void aPoolOfOneConnectionThatTheListenerWouldTakeFailsAtStart() {
        HikariDataSource pool = closeAfter(db.pool(1));
        Docket docket = docketOn(pool);

        assertThatThrownBy(() -> docket.worker().queue("default", 4)
                .handler("task", Task.class, (t, ctx) -> { })
                .start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the worker's pool has 1 connection")
                .hasMessageContaining("listener would hold it")
                .hasMessageContaining("give the pool 7 connections (queues + 6")
                .hasMessageContaining("listen(false)");
    }

    @Test
    void aPoolOfOneWithoutAListenerRunsJobs() {
        HikariDataSource pool = closeAfter(db.pool(1));
        Docket docket = docketOn(pool);
        worker(docket, w -> w.queue("default", 4).listen(false).pollInterval(Duration.ofMillis(100))
                .handler("task", Task.class, (t, ctx) -> { }));

        long id = docket.enqueue("task", new Task(1));

        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(30));
    }

    @Test
    void aPoolOfThreeBelowTheDocumentedNeedStillRunsJobs() {
        HikariDataSource pool = closeAfter(db.pool(3));
        Docket docket = docketOn(pool);
        worker(docket, w -> w.queue("default", 8)
                .handler("task", Task.class, (t, ctx) -> { }));

        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            jobs.add(NewJob.of("task", new Task(i)));
        }
        docket.enqueueAll(jobs);

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> queryLong("SELECT count(*) FROM {s}.job_history WHERE state = 'completed'") == 50);
    }

    @Test
    void aPoolThatHidesItsSizeAndHasNoConnectionToGiveShowsAsStalledInHealth() {
        // Borrowers pass a gate; closing it is a pool with every connection taken and no timeout.
        AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));
        HookedDataSource starving = HookedDataSource.gated(dataSource(), gate);
        Docket docket = docketOn(starving);
        Worker worker = worker(docket, w -> w.queue("default", 2).listen(false).maintenance(false)
                .handler("task", Task.class, (t, ctx) -> { }));
        closeAfter(() -> gate.get().countDown());
        assertThat(worker.health().healthy()).isTrue();
        assertThat(worker.health().stalledServices()).isEmpty();

        gate.set(new CountDownLatch(1));

        // The queue-settings watcher and the producer's poll run every second: their next rounds wait at the gate.
        List<String> waiting = List.of("docket-producer-default", "docket-queue-settings");
        WorkerHealth starved = await("starvation reported").atMost(Duration.ofSeconds(30))
                .until(worker::health, h -> h.stalledServices().containsAll(waiting));
        assertThat(starved.healthy()).isFalse();
        assertThat(starved.failingServices()).as("nothing failed: it only waits").isEmpty();

        gate.get().countDown();
        await("recovered").atMost(Duration.ofSeconds(30)).until(() -> worker.health().healthy());
        assertThat(worker.health().stalledServices()).isEmpty();
    }

    @Test
    void servicesThatFailShowInHealthWithTheirLastErrorAndRecoverByThemselves() {
        AtomicReference<String> refusal = new AtomicReference<>();
        HookedDataSource refusing = new HookedDataSource(dataSource(), () -> {
            if (refusal.get() != null) {
                throw new java.sql.SQLException(refusal.get(), "08001");
            }
        }, c -> { });
        Docket docket = docketOn(refusing);
        Worker worker = worker(docket, w -> w.queue("default", 2).listen(false).maintenance(false)
                .handler("task", Task.class, (t, ctx) -> { }));
        assertThat(worker.health().failingServices()).isEmpty();

        refusal.set("database down for the test");

        WorkerHealth failing = await("failures reported").atMost(Duration.ofSeconds(30))
                .until(worker::health, h -> h.failingServices().getOrDefault("queue-settings", 0)
                        >= WorkerHealth.FAILURE_THRESHOLD);
        assertThat(failing.healthy()).isFalse();
        assertThat(failing.lastErrors()).containsOnlyKeys(failing.failingServices().keySet());
        assertThat(failing.lastErrors().get("queue-settings")).contains("database down for the test");

        refusal.set(null);
        await("recovered").atMost(Duration.ofSeconds(30)).until(() -> worker.health().healthy());
        assertThat(worker.health().lastErrors()).isEmpty();
    }

    /**
     * A round that failed, then one that waits for ever for a connection: health marks the failure
     * as an earlier round's, and does not pass it off as what the waiting round ran into.
     */
    @Test
    void aStalledRoundDoesNotPassThePreviousRoundsErrorOffAsItsOwn() {
        AtomicReference<String> refusal = new AtomicReference<>();
        AtomicReference<CountDownLatch> gate = new AtomicReference<>(new CountDownLatch(0));
        HookedDataSource hooked = new HookedDataSource(dataSource(), () -> {
            if (refusal.get() != null) {
                throw new java.sql.SQLException(refusal.get(), "08001");
            }
            try {
                gate.get().await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.sql.SQLException("interrupted while waiting for the gate");
            }
        }, c -> { });
        Docket docket = docketOn(hooked);
        Worker worker = worker(docket, w -> w.queue("default", 2).listen(false).maintenance(false)
                .handler("task", Task.class, (t, ctx) -> { }));
        closeAfter(() -> gate.get().countDown());

        refusal.set("refused for the test");
        await("the failure reported").atMost(Duration.ofSeconds(30))
                .until(worker::health, h -> h.failingServices().containsKey("queue-settings"));
        assertThat(worker.health().lastErrors().get("queue-settings")).contains("refused for the test")
                .doesNotContain("previous round");

        gate.set(new CountDownLatch(1));
        refusal.set(null);
        WorkerHealth stalled = await("the next round stalled").atMost(Duration.ofSeconds(30))
                .until(worker::health, h -> h.stalledServices().contains("docket-queue-settings"));
        assertThat(stalled.lastErrors().get("queue-settings")).contains("refused for the test")
                .containsPattern("a previous round; the round in progress has been waiting \\d+ s");
    }
}
