package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Per-kind timeouts ({@link HandlerOptions#timeout()}): interrupt, a timeout error, retries, dead letter. */
class TimeoutTest extends DocketTest {

    record Task(String name) {
    }

    @Test
    void aHandlerThatRunsPastItsTimeoutIsInterruptedRetriedAndFinallyDead() {
        Duration timeout = Duration.ofMillis(300);
        Docket docket = docket(b -> b.retryPolicy("slow",
                new RetryPolicy(2, Duration.ofMillis(100), Duration.ofMillis(200), 0)));
        List<Long> startedAt = new CopyOnWriteArrayList<>();
        List<Long> interruptedAt = new CopyOnWriteArrayList<>();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        closeAfter(docket.worker().queue("default", 2)
                .maintenanceInterval(Duration.ofMillis(50)).pollInterval(Duration.ofMillis(100))
                .handler("slow", Task.class, (t, ctx) -> {
                    startedAt.add(System.nanoTime());
                    attempts.add(ctx.attempt());
                    try {
                        new CountDownLatch(1).await(); // forever, unless interrupted
                    } catch (InterruptedException e) {
                        interruptedAt.add(System.nanoTime());
                        throw e;
                    }
                }, HandlerOptions.defaults().withTimeout(timeout))
                .start());

        long enqueuedAt = System.nanoTime();
        long id = docket.enqueue("slow", new Task("never ends"));
        JobInfo dead = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(15));

        assertThat(dead.attempt()).isEqualTo(2);
        assertThat(dead.maxAttempts()).isEqualTo(2);
        assertThat(dead.deadReason()).contains("attempts exhausted");
        assertThat(dead.errors()).hasSize(2);
        assertThat(dead.errors()).extracting(JobError::attempt).containsExactly(1, 2);
        assertThat(dead.errors()).allSatisfy(e -> assertThat(e.message()).contains("timed out"));
        assertThat(attempts).containsExactly(1, 2);
        assertThat(interruptedAt).hasSize(2);
        // The timeout clock starts when the attempt starts (before the payload is read), so the
        // handler itself may get a little less; but no attempt is cut short of its timeout.
        assertThat(Duration.ofNanos(interruptedAt.get(0) - enqueuedAt)).as("attempt 1 ran until its timeout")
                .isGreaterThanOrEqualTo(timeout);
        assertThat(Duration.ofNanos(interruptedAt.get(1) - interruptedAt.get(0))).as("attempt 2 ran until its timeout")
                .isGreaterThanOrEqualTo(timeout);
        for (int i = 0; i < 2; i++) {
            assertThat(Duration.ofNanos(interruptedAt.get(i) - startedAt.get(i)))
                    .as("attempt %d was interrupted at its timeout", i + 1).isLessThan(Duration.ofSeconds(2));
        }
    }

    @Test
    void aHandlerThatFinishesBeforeItsTimeoutCompletes() {
        Docket docket = docket();
        List<Boolean> interruptedFlags = new CopyOnWriteArrayList<>();
        closeAfter(docket.worker().queue("default", 1)
                .handler("quick", Task.class, (t, ctx) -> {
                    // Some work well inside the timeout.
                    CountDownLatch work = new CountDownLatch(1);
                    boolean done = work.await(50, java.util.concurrent.TimeUnit.MILLISECONDS);
                    interruptedFlags.add(done || Thread.currentThread().isInterrupted());
                }, HandlerOptions.defaults().withTimeout(Duration.ofSeconds(2)))
                .start());

        long id = docket.enqueue("quick", new Task("fast"));
        JobInfo job = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));

        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.errors()).isEmpty();
        assertThat(interruptedFlags).containsExactly(false);
    }
}
