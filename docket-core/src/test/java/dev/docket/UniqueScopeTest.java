package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class UniqueScopeTest extends DocketTest {

    record Digest(String user) {
    }

    private static JobOptions daily(String key) {
        return JobOptions.builder().uniqueKey(key).uniqueFor(Duration.ofHours(24)).build();
    }

    /** A key held for a period outlives its job: enqueueing again after completion returns the finished job. */
    @Test
    void aPeriodKeyOutlivesItsJob() {
        Docket docket = docket();
        Enqueued first = docket.enqueue(JobKind.named("digest"), new Digest("ada"), daily("digest:ada:2026-11-25"));
        assertThat(first.inserted()).isTrue();
        worker(docket, w -> w.queue("default", 1).handler("digest", Digest.class, (d, ctx) -> { }));
        awaitState(docket, first.id(), JobState.COMPLETED, Duration.ofSeconds(10));

        Enqueued again = docket.enqueue(JobKind.named("digest"), new Digest("ada"), daily("digest:ada:2026-11-25"));
        assertThat(again).isEqualTo(new Enqueued(first.id(), false));
        Enqueued liveScope = docket.enqueue(JobKind.named("digest"), new Digest("ada"),
                JobOptions.builder().uniqueKey("digest:ada:2026-11-25").build());
        assertThat(liveScope.inserted()).as("a live-scope key only looks at live jobs").isTrue();
    }

    /** Once the period is over (by the database clock) the key is free again. */
    @Test
    void theKeyIsFreeAfterItsPeriod() {
        Docket docket = docket();
        Enqueued first = docket.enqueue(JobKind.named("digest"), new Digest("ada"), daily("k"));
        docket.cancel(first.id());
        assertThat(docket.enqueue(JobKind.named("digest"), new Digest("ada"), daily("k"))).isEqualTo(new Enqueued(first.id(), false));
        execute("UPDATE {s}.unique_keys SET expires_at = now() - interval '1 second'");
        Enqueued next = docket.enqueue(JobKind.named("digest"), new Digest("ada"), daily("k"));
        assertThat(next.inserted()).isTrue();
        assertThat(next.id()).isNotEqualTo(first.id());
    }

    /**
     * Twenty callers race for one period key in their own transactions; odd ones roll back. Exactly one
     * committed caller inserted, every committed caller got that job's id, and it is the only job.
     */
    @Test
    void concurrentCallersLearnTheTruthEvenWhenTheFirstRollsBack() throws Exception {
        Docket docket = docket();
        record Outcome(int caller, Enqueued result, boolean committed) {
        }
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(20);
        for (int i = 0; i < 20; i++) {
            int caller = i;
            pool.submit(() -> {
                try (Connection c = dataSource().getConnection()) {
                    c.setAutoCommit(false);
                    go.await();
                    Enqueued r = docket.enqueueJobs(c, List.of(NewJob.of("digest", new Digest("u" + caller),
                            daily("race")))).getFirst();
                    boolean commit = caller % 2 == 0;
                    if (commit) {
                        c.commit();
                    } else {
                        c.rollback();
                    }
                    outcomes.add(new Outcome(caller, r, commit));
                }
                return null;
            });
        }
        go.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
        assertThat(outcomes).hasSize(20);

        List<Outcome> committed = outcomes.stream().filter(Outcome::committed).toList();
        List<Outcome> committedInserters = committed.stream().filter(o -> o.result().inserted()).toList();
        assertThat(committedInserters).hasSize(1);
        long winner = committedInserters.getFirst().result().id();
        assertThat(committed).allSatisfy(o -> assertThat(o.result().id()).isEqualTo(winner));
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
        assertThat(queryLong("SELECT id FROM {s}.jobs")).isEqualTo(winner);
        assertThat(queryLong("SELECT job_id FROM {s}.unique_keys WHERE key = 'race'")).isEqualTo(winner);
    }

    @Test
    void aPeriodNeedsAKey() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueFor(Duration.ofHours(1)).build())
                .withMessageContaining("uniqueKey");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueFor(Duration.ZERO))
                .withMessageContaining("uniqueFor");
    }
}
