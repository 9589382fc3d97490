package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import java.time.Duration;
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
        closeAfter(docket.worker().queue("default", 2)
                .handler("greet", Greeting.class, (g, ctx) -> {
                    assertThat(g.name()).isEqualTo("ada");
                    ran.countDown();
                })
                .start());
        long id = docket.enqueue("greet", new Greeting("ada"));
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        JobInfo job = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.errors()).isEmpty();
    }
}
