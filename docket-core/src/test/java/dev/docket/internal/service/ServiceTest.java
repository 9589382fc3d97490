package dev.docket.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The service base without a database: lifecycle, one stop policy, failures, stalls, groups. */
class ServiceTest {

    /** Counts rounds; a round can be made to fail, or to block until released. */
    static final class Counting extends PeriodicService {
        final AtomicInteger rounds = new AtomicInteger();
        final AtomicInteger starts = new AtomicInteger();
        final AtomicInteger stops = new AtomicInteger();
        final Semaphore roundDone = new Semaphore(0);
        volatile Exception failWith;
        volatile CountDownLatch block;

        Counting(String name, Duration interval) {
            super(name, interval, new Backoff(interval, interval), LoggerFactory.getLogger(ServiceTest.class));
        }

        @Override
        protected void runOnce() throws Exception {
            try {
                CountDownLatch b = block;
                if (b != null) {
                    b.await();
                }
                rounds.incrementAndGet();
                if (failWith != null) {
                    throw failWith;
                }
            } finally {
                roundDone.release();
            }
        }

        @Override
        protected void beforeStart() {
            starts.incrementAndGet();
        }

        @Override
        protected void afterStop() {
            stops.incrementAndGet();
        }
    }

    private static List<Thread> threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive())
                .toList();
    }

    @Test
    void startStopStopStartStopRunsRoundsOnlyWhileStartedAndLeavesNoThread() throws Exception {
        Counting s = new Counting("svc-lifecycle", Duration.ofHours(1));

        s.start();
        s.start();
        assertThat(s.roundDone.tryAcquire(10, TimeUnit.SECONDS)).as("first round runs at start").isTrue();
        assertThat(threadsNamed("svc-lifecycle")).as("start twice makes one thread").hasSize(1);
        s.stop();
        s.stop();
        assertThat(s.isRunning()).isFalse();
        assertThat(threadsNamed("svc-lifecycle")).isEmpty();
        assertThat(s.stops).as("stop twice stops once").hasValue(1);

        s.start();
        assertThat(s.roundDone.tryAcquire(10, TimeUnit.SECONDS)).as("a restarted service runs again").isTrue();
        assertThat(s.isRunning()).isTrue();
        s.stop();

        assertThat(threadsNamed("svc-lifecycle")).isEmpty();
        assertThat(s.starts).hasValue(2);
        assertThat(s.stops).hasValue(2);
        assertThat(s.rounds).hasValue(2);
    }

    @Test
    void wakeUpRunsTheNextRoundAtOnce() throws Exception {
        Counting s = new Counting("svc-wake", Duration.ofHours(1));
        s.start();
        try {
            assertThat(s.roundDone.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            s.wakeUp();
            assertThat(s.roundDone.tryAcquire(10, TimeUnit.SECONDS)).as("woken round within the hour").isTrue();
        } finally {
            s.stop();
        }
    }

    @Test
    void failuresInARowAreCountedAndASuccessResetsThem() throws Exception {
        Counting s = new Counting("svc-failing", Duration.ofMillis(1));
        s.failWith = new SQLException("database unreachable (test)", "08001");
        s.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> s.consecutiveFailures() >= 3);
            assertThat(s.lastFailure().error()).contains("database unreachable (test)");
            s.failWith = null;
            await().atMost(Duration.ofSeconds(10)).until(() -> s.consecutiveFailures() == 0);
            assertThat(s.lastFailure()).as("the last failure is kept after recovery").isNotNull();
        } finally {
            s.stop();
        }
    }

    @Test
    void aRoundInProgressReportsHowLongItHasRunAndTheStallWatchListsIt() throws Exception {
        Counting s = new Counting("svc-stalled", Duration.ofHours(1));
        s.block = new CountDownLatch(1);
        StallWatch watch = new StallWatch("svc-watch", List.of(s), Duration.ofMillis(200), "test");
        s.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> s.roundNanos() > Duration.ofMillis(200).toNanos());
            assertThat(watch.stalled()).containsExactly("svc-stalled");
            watch.runOnce();
            s.block.countDown();
            assertThat(s.roundDone.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> s.roundNanos() == 0);
            assertThat(watch.stalled()).as("a round that ended is no longer stalled").isEmpty();
        } finally {
            s.stop();
        }
    }

    @Test
    void aGroupStartsInOrderAndStopsInReverse() {
        List<String> events = new ArrayList<>();
        class Step implements Lifecycle {
            final String name;

            Step(String name) {
                this.name = name;
            }

            @Override
            public void start() {
                events.add("start " + name);
            }

            @Override
            public void stop() {
                events.add("stop " + name);
            }
        }
        ServiceGroup group = new ServiceGroup(List.of(new Step("heartbeat"), new Step("completer"), new Step("producer")));

        group.start();
        group.start();
        group.stop();
        group.stop();

        assertThat(events).containsExactly("start heartbeat", "start completer", "start producer",
                "stop producer", "stop completer", "stop heartbeat");
    }

    @Test
    void aGroupWhoseMemberFailsToStartStopsTheOnesStartedBefore() {
        List<String> events = new ArrayList<>();
        Lifecycle ok = new Lifecycle() {
            @Override
            public void start() {
                events.add("start ok");
            }

            @Override
            public void stop() {
                events.add("stop ok");
            }
        };
        Lifecycle broken = new Lifecycle() {
            @Override
            public void start() {
                throw new IllegalStateException("cannot start");
            }

            @Override
            public void stop() {
                events.add("stop broken");
            }
        };
        ServiceGroup group = new ServiceGroup(List.of(ok, broken));

        org.assertj.core.api.Assertions.assertThatThrownBy(group::start).hasMessage("cannot start");
        assertThat(events).containsExactly("start ok", "stop ok");
    }
}
