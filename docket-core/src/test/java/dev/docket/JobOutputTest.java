package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A handler's recorded output ({@link JobContext#recordOutput}) as {@link Docket#job(long)} shows it. */
class JobOutputTest extends DocketTest {

    record Order(String id) {
    }

    record Receipt(String order, long cents) {
    }

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aCompletedJobShowsTheOutputItsHandlerRecorded() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("charge", new Order("o-1"));
        worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofMillis(50))
                .handler("charge", Order.class, (o, ctx) -> ctx.recordOutput(new Receipt(o.id(), 4200))));

        JobInfo done = awaitState(docket, id, JobState.COMPLETED, WAIT);

        assertThat(new ObjectMapper().readValue(done.output(), Receipt.class)).isEqualTo(new Receipt("o-1", 4200));
        assertThat(done.toString()).as("never logged").doesNotContain("4200").doesNotContain("o-1");
    }

    @Test
    void aDeadJobKeepsTheOutputItsLastAttemptRecorded() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("charge", new Order("o-2"), JobOptions.builder().maxAttempts(1).build());
        worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofMillis(50))
                .handler("charge", Order.class, (o, ctx) -> {
                    ctx.recordOutput(new Receipt(o.id(), 99));
                    throw new IllegalStateException("the shipping step refused");
                }));

        JobInfo dead = awaitState(docket, id, JobState.DEAD, WAIT);

        assertThat(new ObjectMapper().readValue(dead.output(), Receipt.class)).isEqualTo(new Receipt("o-2", 99));
    }

    /** The output a failed attempt recorded is not the completed job's: its retry starts without one. */
    @Test
    void aRetriedAttemptDoesNotInheritTheFailedAttemptsOutput() {
        Docket docket = docket(b -> b.defaultRetryPolicy(new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(1), 0)));
        long id = docket.enqueue("charge", new Order("o-4"));
        worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofMillis(50))
                .handler("charge", Order.class, (o, ctx) -> {
                    if (ctx.attempt() == 1) {
                        ctx.recordOutput(new Receipt(o.id(), 1));
                        throw new IllegalStateException("the card network timed out");
                    }
                }));

        JobInfo done = awaitState(docket, id, JobState.COMPLETED, WAIT);

        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.output()).as("the completing attempt recorded nothing").isNull();
    }

    @Test
    void aJobWithoutOutputHasNone() {
        Docket docket = docket();
        long waiting = docket.enqueue("charge", new Order("o-3"));
        assertThat(docket.job(waiting).orElseThrow().output()).as("live, not yet run").isNull();

        worker(docket, w -> w.queue("default", 1).pollInterval(Duration.ofMillis(50))
                .handler("charge", Order.class, (o, ctx) -> { }));

        assertThat(awaitState(docket, waiting, JobState.COMPLETED, WAIT).output()).as("completed silently").isNull();
    }
}
