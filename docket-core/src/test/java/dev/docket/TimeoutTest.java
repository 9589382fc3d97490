package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Per-kind timeouts ({@link JobKind.Builder#timeout}): interrupt, a timeout error, retries, dead letter. */
class TimeoutTest extends DocketTest {

    record Task(String name) {
    }

    @Test
    void aHandlerThatRunsPastItsTimeoutIsInterruptedRetriedAndFinallyDead() {
        Duration timeout = Duration.ofMillis(300);
        Docket docket = docket(b -> b.retryPolicy("slow",
                new RetryPolicy(2, Duration.ofMillis(100), Duration.ofMillis(200), 0)));
        List<Long> interruptedAt = new CopyOnWriteArrayList<>();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 2)
                .maintenanceInterval(Duration.ofMillis(50)).pollInterval(Duration.ofMillis(100))
                .handler(JobKind.of("slow", Task.class).timeout(timeout).build(), (t, ctx) -> {
                    attempts.add(ctx.attempt());
                    try {
                        new CountDownLatch(1).await(); // forever, unless interrupted
                    } catch (InterruptedException e) {
                        interruptedAt.add(System.nanoTime());
                        throw e;
                    }
                }));

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
    }

    /**
     * A handler that works for less than its timeout (300 ms of a 20 s timeout) is not interrupted: its
     * work ends by itself, and the job completes at its first attempt.
     */
    @Test
    void aHandlerThatFinishesBeforeItsTimeoutCompletes() {
        Docket docket = docket();
        List<String> outcomes = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 1)
                .handler(JobKind.of("quick", Task.class).timeout(Duration.ofSeconds(20)).build(), (t, ctx) -> {
                    // 300 ms of work, which only the timeout could cut short.
                    CountDownLatch work = new CountDownLatch(1);
                    try {
                        work.await(300, TimeUnit.MILLISECONDS);
                        outcomes.add("worked 300 ms");
                    } catch (InterruptedException e) {
                        outcomes.add("interrupted");
                        throw e;
                    }
                }));

        long id = docket.enqueue("quick", new Task("fast"));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !outcomes.isEmpty());
        assertThat(outcomes.getFirst()).as("the first attempt").isEqualTo("worked 300 ms");
        JobInfo job = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));

        assertThat(outcomes).containsExactly("worked 300 ms");
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.errors()).isEmpty();
    }
}
