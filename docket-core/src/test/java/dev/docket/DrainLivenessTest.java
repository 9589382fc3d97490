package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A drain of a backlog never waits for the poll: with the poll interval an hour and nothing enqueued
 * while the workers run (so no notification comes), every job still runs. Short handlers move the
 * claim-ahead target all the time, which is what once made a producer take a short claim for an empty
 * queue (PITFALLS: "a worker idles for a whole poll interval beside a backlog").
 */
class DrainLivenessTest extends DocketTest {

    record Task(int n) {
    }

    private static final int JOBS = 10_000;

    @Test
    void aBacklogDrainsWithThePollAnHourAway() {
        Docket docket = docket();
        for (int from = 0; from < JOBS; from += 2_000) {
            int start = from;
            docket.enqueueAll(IntStream.range(start, start + 2_000).mapToObj(i -> NewJob.of("noop", new Task(i))).toList());
        }
        AtomicInteger ran = new AtomicInteger();

        worker(docket, w -> w.queue("default", 32).pollInterval(Duration.ofHours(1))
                .handler("noop", Task.class, (t, ctx) -> ran.incrementAndGet()));

        await("every job ran, the next poll an hour away").atMost(Duration.ofSeconds(120)).until(() -> ran.get() == JOBS);
        await().atMost(Duration.ofSeconds(30)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history")).isEqualTo(JOBS);
    }
}
