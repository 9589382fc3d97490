package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.internal.completer.Completer;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.NetworkTimeout;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.heartbeat.Heartbeater;
import dev.docket.internal.maintenance.Maintainer;
import dev.docket.internal.notify.Notifier;
import dev.docket.internal.observe.JobObserver;
import dev.docket.internal.producer.Producer;
import dev.docket.internal.producer.QueueSettingsWatcher;
import dev.docket.internal.service.Service;
import dev.docket.internal.service.StallWatch;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * Every service survives start, stop, stop again, start again, stop: it runs only while started,
 * leaves no thread behind, and does its work again after a restart.
 */
// Alone: a service's thread is found by its name, which every other test's workers use as well.
@Isolated
class ServiceLifecycleTest extends DocketTest {

    private static final Duration FAST = Duration.ofMillis(50);
    private static final Duration PROMPT = Duration.ofSeconds(10);

    record Task(int n) {
    }

    private static boolean threadAlive(Service s) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(s.name()) && t.isAlive());
    }

    /**
     * Start, stop, stop, start, stop; {@code worksWhileStarted} runs after each start and must show
     * the service doing its work.
     */
    private static void cycle(Service s, Runnable worksWhileStarted) {
        for (int round = 0; round < 2; round++) {
            s.start();
            s.start();
            assertThat(s.isRunning()).isTrue();
            assertThat(threadAlive(s)).as("%s runs after start %d", s.name(), round + 1).isTrue();
            worksWhileStarted.run();
            s.stop();
            s.stop();
            assertThat(s.isRunning()).isFalse();
            assertThat(threadAlive(s)).as("%s left no thread after stop %d", s.name(), round + 1).isFalse();
            assertThat(s.roundNanos()).isZero();
        }
    }

    @Test
    void queueSettingsWatcher() {
        Docket docket = docket();
        QueueSettingsWatcher watcher = new QueueSettingsWatcher(docket.wiring().store(), FAST);
        String[] queue = {"first"};

        cycle(watcher, () -> {
            docket.admin().pauseQueue(queue[0]);
            await().atMost(PROMPT).until(() -> watcher.settings(queue[0]).paused());
            queue[0] = "second";
        });
    }

    @Test
    void heartbeater() {
        Docket docket = docket();
        Heartbeater heartbeater = new Heartbeater(docket.wiring().store(), new InFlight(), "w1", Duration.ofSeconds(30),
                kind -> null, FAST, false);

        cycle(heartbeater, () -> await().atMost(PROMPT).until(() -> heartbeater.consecutiveFailures() == 0));
    }

    @Test
    void maintainerPromotesDueJobsAfterEveryStart() {
        Docket docket = docket();
        Maintainer maintainer = new Maintainer(docket.wiring().store(), FAST, Duration.ofDays(7), Duration.ofDays(30));

        cycle(maintainer, () -> {
            long id = docket.enqueue("task", new Task(1), JobOptions.builder().runAt(java.time.Instant.now()
                    .minusSeconds(1)).build());
            execute("UPDATE {s}.jobs SET state = 'scheduled' WHERE id = " + id);
            await().atMost(PROMPT).until(() -> docket.job(id).orElseThrow().state() == JobState.READY);
        });
    }

    @Test
    void completerWritesOutcomesAfterEveryStart() {
        Docket docket = docket();
        Completer completer = new Completer(docket.wiring().store(), "w1", true, false, 100, PROMPT);

        cycle(completer, () -> {
            CompletableFuture<Boolean> written = new CompletableFuture<>();
            completer.submit(new Outcome.Completed(new Fence(-1, 1), null), written::complete);
            assertThat(written).succeedsWithin(PROMPT);
        });
    }

    @Test
    void notifierListensAfterEveryStartAndNotAfterStop() {
        Docket docket = docket();
        Semaphore woken = new Semaphore(0);
        Notifier notifier = new Notifier(dataSource(), docket.wiring().schema().channel(), Map.of("default", woken::release),
                Duration.ofSeconds(10), NetworkTimeout.NONE);

        cycle(notifier, () -> {
            await().atMost(PROMPT).until(notifier::isListening);
            woken.drainPermits();
            docket().enqueue("task", new Task(1));
            try {
                assertThat(woken.tryAcquire(PROMPT.toMillis(), TimeUnit.MILLISECONDS)).as("notified").isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(notifier.isListening()).isFalse();
        assertThat(notifier.backendPid()).isEqualTo(-1);
    }

    @Test
    void producerClaimsAfterEveryStart() {
        Docket docket = docket();
        Database store = docket.wiring().store();
        Completer completer = new Completer(store, "w1", true, false, 100, PROMPT);
        closeAfter(completer::stop);
        completer.start();
        Semaphore ran = new Semaphore(0);
        JobHandler<Task> handler = (t, ctx) -> ran.release();
        JobExecutor executor = closeAfter(new JobExecutor(Map.of("task", new HandlerBinding<>(
                JobKind.of("task", Task.class).build(), handler, RetryPolicy.defaults())), kind -> RetryPolicy.defaults(),
                docket.wiring().codec(), completer, store, new InFlight(), "w1", JobObserver.NONE, true));
        QueueSettingsWatcher settings = new QueueSettingsWatcher(store, Duration.ofSeconds(1));
        Producer producer = new Producer(new Producer.Settings("default", 2, 2, 0, FAST, Duration.ofSeconds(30), "w1"),
                store, executor, settings, JobObserver.NONE);

        cycle(producer, () -> {
            docket.enqueue("task", new Task(1));
            try {
                assertThat(ran.tryAcquire(PROMPT.toMillis(), TimeUnit.MILLISECONDS)).as("claimed and ran").isTrue();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void stallWatch() {
        QueueSettingsWatcher watched = new QueueSettingsWatcher(docket().wiring().store(), FAST);
        StallWatch watch = new StallWatch("docket-stall-watch-test", List.of(watched), Duration.ofSeconds(5), "test");

        cycle(watch, () -> assertThat(watch.stalled()).isEmpty());
    }
}
