package dev.docket.internal.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.Docket;
import dev.docket.JobKind;
import dev.docket.NewJob;
import dev.docket.RetryPolicy;
import dev.docket.internal.completer.Completer;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.executor.HandlerBinding;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.JobExecutor;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.observe.JobObserver;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A producer never idles beside a backlog: whatever the number of jobs it may claim does between two
 * reads, only a claim that got fewer jobs than it asked for ends its claiming until the next wake-up.
 * The poll interval here is an hour and nothing else wakes the producer, so a wrong "drained" shows as
 * a drain that does not finish.
 */
class ProducerLivenessTest extends DocketTest {

    record Task(int n) {
    }

    private static final int JOBS = 2_000;
    private static final int SLOTS = 4;

    /** A claim-ahead target that falls by one at every read, as a running-time average that handlers move. */
    private static final class FallingTarget extends ClaimAhead {
        private final AtomicInteger next = new AtomicInteger(500);

        FallingTarget() {
            super(SLOTS, 500);
        }

        @Override
        int target() {
            return Math.max(0, next.getAndDecrement());
        }
    }

    @Test
    void aClaimAheadTargetThatMovesBetweenReadsNeverLeavesTheBacklogUntilThePoll() throws Exception {
        Docket docket = docket();
        docket.enqueueAll(IntStream.range(0, JOBS).mapToObj(i -> NewJob.of("noop", new Task(i))).toList());
        AtomicInteger ran = new AtomicInteger();

        Database store = new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
        Completer completer = new Completer(store, "w1", false, false, 100, Duration.ofSeconds(5));
        completer.start();
        closeAfter(completer::stop);
        JobExecutor executor = new JobExecutor(
                Map.of("noop", new HandlerBinding<>(JobKind.of("noop", Task.class).build(),
                        (task, ctx) -> ran.incrementAndGet(), RetryPolicy.defaults())),
                kind -> RetryPolicy.defaults(), new PayloadCodec(PayloadCodec.defaultMapper(), 1 << 20), completer,
                store, new InFlight(), "w1", JobObserver.NONE, false);
        closeAfter(executor);
        QueueSettingsWatcher queueSettings = new QueueSettingsWatcher(store, Duration.ofHours(1));
        queueSettings.runOnce();
        Producer producer = new Producer(new Producer.Settings("default", SLOTS, 1_000, 500, Duration.ofHours(1),
                Duration.ofMinutes(5), "w1"), store, executor, queueSettings, JobObserver.NONE, new FallingTarget());

        producer.start();
        closeAfter(producer::stop);

        await("every job ran, with the next poll an hour away").atMost(Duration.ofSeconds(60))
                .until(() -> ran.get() == JOBS);
        await().atMost(Duration.ofSeconds(30)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(ran).hasValue(JOBS);
    }
}
