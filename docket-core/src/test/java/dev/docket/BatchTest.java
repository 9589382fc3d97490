package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link Batch}: callbacks that run exactly once when the batch's jobs have finished. */
class BatchTest extends DocketTest {

    record Row(int index) {
    }

    record Summary(String name) {
    }

    /**
     * 10,000 jobs and a summary callback: the last 32 jobs are held until all 32 run at once on 32 slots
     * (two workers of 16), so their completions race; the summary runs exactly once, after all of them.
     */
    @Test
    @Tag("load")
    void aTenThousandJobFanOutRunsItsSummaryExactlyOnce() throws Exception {
        int size = 10_000;
        int racing = 32;
        Docket docket = docket();
        BatchEnqueued batch = docket.enqueueBatch(Batch.builder()
                .jobs("row", IntStream.range(0, size).mapToObj(Row::new).toList())
                .onAllSucceeded("summary", new Summary("import"))
                .build());
        assertThat(batch.jobs().stream().map(Enqueued::id).toList()).hasSize(size).doesNotHaveDuplicates();
        assertThat(docket.job(batch.onAllSucceeded()).orElseThrow().state()).isEqualTo(JobState.WAITING);

        AtomicInteger started = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        CountDownLatch lastOnesRunning = new CountDownLatch(racing);
        AtomicInteger summaries = new AtomicInteger();
        AtomicBoolean raceMissed = new AtomicBoolean();
        AtomicInteger finishedBeforeSummary = new AtomicInteger(-1);
        CountDownLatch summaryRan = new CountDownLatch(1);
        for (int w = 0; w < 2; w++) {
            // No claiming ahead: a job held in one worker's buffer would keep a slot of the other idle.
            worker(docket, b -> b.queue("default", 16).claimAhead(0).pollInterval(Duration.ofMillis(50))
                    .handler("row", Row.class, (row, ctx) -> {
                        if (started.incrementAndGet() > size - racing) {
                            lastOnesRunning.countDown();
                            if (!lastOnesRunning.await(60, TimeUnit.SECONDS)) {
                                raceMissed.set(true);
                            }
                        }
                        finished.incrementAndGet();
                    })
                    .handler("summary", Summary.class, (s, ctx) -> {
                        finishedBeforeSummary.set(finished.get());
                        summaries.incrementAndGet();
                        summaryRan.countDown();
                    }));
        }

        assertThat(summaryRan.await(120, TimeUnit.SECONDS)).isTrue();
        awaitState(docket, batch.onAllSucceeded(), JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(raceMissed).as("the last 32 ran at the same time").isFalse();
        assertThat(started.get()).as("each job ran once").isEqualTo(size);
        assertThat(finishedBeforeSummary.get()).isEqualTo(size);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE kind = 'row' AND state = 'completed'"))
                .isEqualTo(size);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> summaries.get() == 1);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_dependencies")).isZero();
    }

    @Test
    void eachCallbackRunsOnceOrIsCancelledByTheOutcome() throws Exception {
        Docket docket = docket();
        BatchEnqueued batch = docket.enqueueBatch(Batch.builder()
                .job("row", new Row(1)).job("row", new Row(2)).job("row", new Row(3)).job("row", new Row(4))
                .onAllFinished("summary", new Summary("finished"))
                .onAllSucceeded("summary", new Summary("succeeded"))
                .onAnyDied("summary", new Summary("died"))
                .build());
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        worker(docket, b -> b.queue("default", 4).pollInterval(Duration.ofMillis(50))
                .handler("row", Row.class, (row, ctx) -> {
                    if (row.index() % 2 == 0) {
                        throw new PermanentJobFailure("bad row " + row.index());
                    }
                })
                .handler("summary", Summary.class, (s, ctx) -> ran.add(s.name())));

        awaitState(docket, batch.onAllFinished(), JobState.COMPLETED, Duration.ofSeconds(20));
        awaitState(docket, batch.onAnyDied(), JobState.COMPLETED, Duration.ofSeconds(20));
        JobInfo succeeded = awaitState(docket, batch.onAllSucceeded(), JobState.CANCELLED, Duration.ofSeconds(20));
        assertThat(succeeded.metadata()).contains("died");
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .until(() -> ran.size() == 2 && ran.containsAll(List.of("finished", "died")));
    }

    @Test
    void anAnyDiedCallbackIsCancelledWhenAllSucceed() {
        Docket docket = docket();
        BatchEnqueued batch = docket.enqueueBatch(Batch.builder().job("row", new Row(1)).job("row", new Row(3))
                .onAnyDied("summary", new Summary("died")).build());
        worker(docket, b -> b.queue("default", 2).pollInterval(Duration.ofMillis(50))
                .handler("row", Row.class, (row, ctx) -> { })
                .handler("summary", Summary.class, (s, ctx) -> { }));

        JobInfo callback = awaitState(docket, batch.onAnyDied(), JobState.CANCELLED, Duration.ofSeconds(20));
        assertThat(callback.metadata()).contains("none died");
    }

    @Test
    void aBatchInARolledBackTransactionLeavesNothingAndBadBatchesAreRefused() throws Exception {
        Docket docket = docket();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            docket.enqueueBatch(tx, Batch.builder().job("row", new Row(1)).onAllFinished("summary", null).build());
            tx.rollback();
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThatIllegalArgumentException().isThrownBy(() -> Batch.builder().build()).withMessageContaining("at least one");
        assertThatIllegalArgumentException().isThrownBy(() -> Batch.builder()
                .job(NewJob.of("row", null, JobOptions.builder().dependsOn(5).build())));
        assertThatIllegalArgumentException().isThrownBy(() -> Batch.builder().onAnyDied("bad\u202Ekind", null));
    }
}
