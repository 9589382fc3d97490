package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SmokeTest extends DocketTest {

    record Greeting(String name) {
    }

    @Test
    void enqueuedJobRunsAndCompletes() throws Exception {
        Docket docket = docket();
        CountDownLatch ran = new CountDownLatch(1);
        List<Greeting> received = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 2)
                .handler("greet", Greeting.class, (g, ctx) -> {
                    received.add(g);
                    ran.countDown();
                }));
        long id = docket.enqueue("greet", new Greeting("ada"));
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(received).containsExactly(new Greeting("ada"));
        JobInfo job = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.errors()).isEmpty();
    }

    /** A closed Docket still enqueues (a burst inside the notification window included) and answers queries. */
    @Test
    void aClosedDocketStillEnqueues() {
        Docket docket = docket();
        docket.close();
        long first = docket.enqueue("greet", new Greeting("a"));
        long second = docket.enqueue("greet", new Greeting("b"));
        assertThat(docket.job(first).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(docket.job(second).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(docket.admin().jobs(JobQuery.all())).hasSize(2);
    }
}
