package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A worker never waits for its poll while its queue has ready jobs: every path that makes a job ready
 * wakes the workers that may have found the queue drained. The poll interval here is an hour, so a
 * missed wake-up shows as a job that does not run.
 */
class LivenessTest extends DocketTest {

    record Task(int n) {
    }

    private static final int JOBS = 10_000;

    private static final Duration HOUR = Duration.ofHours(1);

    /**
     * Nothing is enqueued while the workers run, so no notification comes. Short handlers move the
     * claim-ahead target all the time, which once made a producer take a short claim for an empty queue
     * (PITFALLS: "a worker idles for a whole poll interval beside a backlog").
     */
    @Test
    @Tag("load")
    void aBacklogDrainsWithThePollAnHourAway() {
        Docket docket = docket();
        for (int from = 0; from < JOBS; from += 2_000) {
            int start = from;
            docket.enqueueAll(IntStream.range(start, start + 2_000).mapToObj(i -> NewJob.of("noop", new Task(i))).toList());
        }
        AtomicInteger ran = new AtomicInteger();

        worker(docket, w -> w.queue("default", 32).pollInterval(HOUR)
                .handler("noop", Task.class, (t, ctx) -> ran.incrementAndGet()));

        await("every job ran, the next poll an hour away").atMost(Duration.ofSeconds(120)).until(() -> ran.get() == JOBS);
        await().atMost(Duration.ofSeconds(30)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history")).isEqualTo(JOBS);
    }

    @Test
    void jobsReleasedByAStoppingWorkerRunOnAWorkerThatFoundTheQueueDrained() throws Exception {
        Docket docket = docket();
        CountDownLatch blocked = new CountDownLatch(1);
        Worker stopping = docket.worker().queue("default", 1).pollInterval(HOUR).shutdownGrace(Duration.ZERO)
                .handler("block", Task.class, (t, ctx) -> {
                    blocked.countDown();
                    new CountDownLatch(1).await();
                }).start();
        closeAfter(stopping);
        long id = docket.enqueue("block", new Task(1));
        assertThat(blocked.await(30, TimeUnit.SECONDS)).as("the first worker runs the job").isTrue();
        CountDownLatch ranElsewhere = new CountDownLatch(1);
        Docket other = docket();
        worker(other, w -> w.queue("default", 1).pollInterval(HOUR)
                .handler("block", Task.class, (t, ctx) -> ranElsewhere.countDown())
                .handler("marker", Task.class, (t, ctx) -> { }));
        // The second worker runs this one, then claims again and finds the queue drained.
        long marker = docket.enqueue("marker", new Task(2));
        awaitState(docket, marker, JobState.COMPLETED, Duration.ofSeconds(30));

        stopping.close();

        assertThat(ranElsewhere.await(30, TimeUnit.SECONDS)).as("the released job ran on the other worker").isTrue();
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(30));
    }

    @Test
    void aJobSnoozedForNoTimeRunsAgainWithoutWaitingForThePoll() {
        Docket docket = docket();
        AtomicInteger attempts = new AtomicInteger();
        worker(docket, w -> w.queue("default", 4).pollInterval(HOUR)
                .handler("again", Task.class, (t, ctx) -> {
                    if (attempts.incrementAndGet() == 1) {
                        ctx.snooze(Duration.ZERO);
                    }
                }));

        long id = docket.enqueue("again", new Task(1));

        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(30));
        assertThat(attempts).hasValue(2);
    }
}
