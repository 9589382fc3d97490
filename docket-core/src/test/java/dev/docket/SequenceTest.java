package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import dev.docket.testing.Queries;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ordered processing per key ({@link JobOptions.Builder#sequenceKey}): one job of a key at a time, in
 * enqueue order, across workers; the head holds its key while it retries; a death continues or halts
 * the sequence as configured, and a halt ends with a retry or a discard of the dead job.
 */
class SequenceTest extends DocketTest {

    record Step(String key, int n) {
    }

    private static JobOptions key(String key) {
        return JobOptions.builder().sequenceKey(key).build();
    }

    /** Records each step's number; step 0 fails for good. */
    private static JobHandler<Step> firstIsPoison(List<Integer> ran) {
        return (step, ctx) -> {
            ran.add(step.n());
            if (step.n() == 0) {
                throw new PermanentJobFailure("poison");
            }
        };
    }

    private List<JobState> states(Docket docket, List<Long> ids) {
        return ids.stream().map(id -> docket.job(id).orElseThrow().state()).toList();
    }

    /** Only the oldest job of a key can be claimed; the others wait outside the claim index, whatever path removes the head. */
    @Test
    void onlyTheHeadOfASequenceIsReadyAndTheNextTakesOverInTheSameTransaction() {
        Docket docket = docket();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(docket.enqueue("step", new Step("a", i), key("a")));
        }
        long other = docket.enqueue("step", new Step("b", 0), key("b"));
        long plain = docket.enqueue("step", new Step("-", 0));

        assertThat(states(docket, ids)).containsExactly(JobState.READY, JobState.WAITING, JobState.WAITING, JobState.WAITING);
        assertThat(docket.job(other).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(docket.job(plain).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(docket.job(ids.get(1)).orElseThrow().sequenceKey()).isEqualTo("a");
        assertThat(docket.job(plain).orElseThrow().sequenceKey()).isNull();

        assertThat(docket.cancel(ids.get(0))).isTrue();
        assertThat(states(docket, ids.subList(1, 4))).containsExactly(JobState.READY, JobState.WAITING, JobState.WAITING);

        // An administrator's DELETE is a path too.
        execute("DELETE FROM {s}.jobs WHERE id = " + ids.get(1));
        assertThat(states(docket, ids.subList(2, 4))).containsExactly(JobState.READY, JobState.WAITING);

        // A waiting job that leaves changes no head.
        assertThat(docket.cancel(ids.get(3))).isTrue();
        assertThat(docket.job(ids.get(2)).orElseThrow().state()).isEqualTo(JobState.READY);
    }

    /** A job enqueued for later that becomes the head is scheduled, not ready: its run_at still holds. */
    @Test
    void aFutureJobBehindTheHeadBecomesScheduledWhenItsTurnComes() {
        Docket docket = docket();
        long head = docket.enqueue("step", new Step("a", 0), key("a"));
        long later = docket.enqueue("step", new Step("a", 1),
                JobOptions.builder().sequenceKey("a").delay(Duration.ofHours(1)).build());
        assertThat(docket.job(later).orElseThrow().state()).isEqualTo(JobState.WAITING);
        docket.cancel(head);
        assertThat(docket.job(later).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }

    /** A bulk enqueue keeps the list's order within each key, with keys interleaved. */
    @Test
    void enqueueAllKeepsEnqueueOrderWithinEachKey() {
        Docket docket = docket();
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String k = "k" + (i % 3);
            jobs.add(NewJob.of("step", new Step(k, i), key(k)));
        }
        List<Long> ids = docket.enqueueAll(jobs);
        for (int k = 0; k < 3; k++) {
            List<Long> ofKey = new ArrayList<>();
            for (int i = k; i < 300; i += 3) {
                ofKey.add(ids.get(i));
            }
            assertThat(ofKey).isSorted();
            assertThat(states(docket, List.of(ofKey.get(0), ofKey.get(1)))).containsExactly(JobState.READY, JobState.WAITING);
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'ready'")).isEqualTo(3);
    }

    /** 8 keys of 40 jobs on 16 slots across two workers: per key one at a time, in enqueue order; keys in parallel. */
    @Test
    @Timeout(60)
    void jobsOfAKeyRunOneAtATimeInEnqueueOrderAcrossWorkers() {
        Docket docket = docket();
        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        Map<String, List<Integer>> order = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger maxParallel = new AtomicInteger();
        AtomicInteger running = new AtomicInteger();
        JobHandler<Step> handler = (step, ctx) -> {
            if (inFlight.computeIfAbsent(step.key(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            maxParallel.accumulateAndGet(running.incrementAndGet(), Math::max);
            order.computeIfAbsent(step.key(), k -> new CopyOnWriteArrayList<>()).add(step.n());
            running.decrementAndGet();
            inFlight.get(step.key()).decrementAndGet();
        };
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 320; i++) {
            String k = "key-" + (i % 8);
            jobs.add(NewJob.of("step", new Step(k, i / 8), key(k)));
        }
        docket.enqueueAll(jobs.subList(0, 160));
        for (NewJob job : jobs.subList(160, 320)) {
            docket.enqueue(job.kind(), job.payload(), job.options());
        }
        worker(docket, w -> w.queue("default", 8).handler("step", Step.class, handler));
        worker(docket, w -> w.queue("default", 8).handler("step", Step.class, handler));

        await().atMost(Duration.ofSeconds(45)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(overlaps).hasValue(0);
        assertThat(order).hasSize(8);
        for (List<Integer> ns : order.values()) {
            assertThat(ns).hasSize(40).isSorted();
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE state = 'completed' AND sequence_key IS NOT NULL"))
                .isEqualTo(320);
    }

    /** A failing head keeps its key through its retries: the job behind it starts only after the head completed. */
    @Test
    @Timeout(60)
    void aFailingHeadHoldsItsSequenceWhileItRetries() {
        Docket docket = docket(b -> b.retryPolicy("step", new RetryPolicy(5, Duration.ofMillis(10), Duration.ofMillis(20), 0)));
        List<String> log = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 4).maintenanceInterval(Duration.ofMillis(20))
                .handler("step", Step.class, (step, ctx) -> {
                    log.add(step.n() + "#" + ctx.attempt());
                    if (step.n() == 0 && ctx.attempt() < 3) {
                        throw new IllegalStateException("not yet");
                    }
                }));
        long first = docket.enqueue("step", new Step("a", 0), key("a"));
        long second = docket.enqueue("step", new Step("a", 1), key("a"));

        awaitState(docket, second, JobState.COMPLETED, Duration.ofSeconds(30));
        assertThat(log).containsExactly("0#1", "0#2", "0#3", "1#1");
        assertThat(docket.job(first).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    /** By default a death lets the sequence go on: the next job runs. */
    @Test
    @Timeout(30)
    void aDeadHeadLetsTheSequenceContinueByDefault() {
        Docket docket = docket();
        List<Integer> ran = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 4).handler("step", Step.class, firstIsPoison(ran)));
        long poison = docket.enqueue("step", new Step("a", 0), key("a"));
        long next = docket.enqueue("step", new Step("a", 1), key("a"));

        awaitState(docket, next, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(docket.job(poison).orElseThrow().state()).isEqualTo(JobState.DEAD);
        assertThat(docket.job(poison).orElseThrow().sequenceKey()).isEqualTo("a");
        assertThat(ran).containsExactly(0, 1);
    }

    /**
     * A per-job halt stops the sequence at the dead job ("why" says so); replaying it runs it again
     * before the jobs that waited, and they follow in order.
     */
    @Test
    @Timeout(30)
    void aHaltingDeathStopsTheSequenceUntilTheDeadJobIsRetriedAndItRunsFirst() {
        Docket docket = docket();
        List<Integer> ran = new CopyOnWriteArrayList<>();
        AtomicInteger poisoned = new AtomicInteger(1);
        worker(docket, w -> w.queue("default", 4).handler("step", Step.class, (step, ctx) -> {
            if (step.key().equals("a")) {
                ran.add(step.n());
            }
            if (step.n() == 0 && poisoned.getAndDecrement() > 0) {
                throw new PermanentJobFailure("poison");
            }
        }));
        long poison = docket.enqueue("step", new Step("a", 0),
                JobOptions.builder().sequenceKey("a").haltSequenceOnDeath(true).build());
        long second = docket.enqueue("step", new Step("a", 1), key("a"));
        long third = docket.enqueue("step", new Step("a", 2), key("a"));
        long elsewhere = docket.enqueue("step", new Step("b", 9), key("b"));

        awaitState(docket, poison, JobState.DEAD, Duration.ofSeconds(20));
        awaitState(docket, elsewhere, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(states(docket, List.of(second, third))).containsExactly(JobState.WAITING, JobState.WAITING);
        JobExplanation why = docket.admin().explain(third).orElseThrow();
        assertThat(why.state()).isEqualTo(JobState.WAITING);
        assertThat(why.reasons()).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo(JobExplanation.Code.SEQUENCE_HALTED);
            assertThat(r.message()).contains("Sequence a is halted by dead job " + poison);
            assertThat(r.facts()).containsEntry("deadJobId", Long.toString(poison)).containsEntry("sequenceKey", "a");
        });
        // Enqueues while halted wait too.
        long fourth = docket.enqueue("step", new Step("a", 3), key("a"));
        assertThat(docket.job(fourth).orElseThrow().state()).isEqualTo(JobState.WAITING);

        assertThat(docket.admin().retry(poison)).isTrue();
        awaitState(docket, fourth, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(ran).containsExactly(0, 0, 1, 2, 3);
    }

    /** A kind's defaults make halting its policy; discarding the dead job lets the next one run. */
    @Test
    @Timeout(30)
    void aKindThatHaltsItsSequencesResumesWhenTheDeadJobIsDiscarded() {
        Docket docket = docket(b -> b.kind(JobKind.of("step", Step.class)
                .defaults(KindDefaults.builder().haltSequenceOnDeath(true).build()).build()));
        List<Integer> ran = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 4).handler("step", Step.class, firstIsPoison(ran)));
        long poison = docket.enqueue("step", new Step("a", 0), key("a"));
        long second = docket.enqueue("step", new Step("a", 1), key("a"));
        awaitState(docket, poison, JobState.DEAD, Duration.ofSeconds(20));
        assertThat(docket.job(second).orElseThrow().state()).isEqualTo(JobState.WAITING);

        assertThat(docket.admin().discardDead(poison)).isTrue();
        assertThat(docket.admin().discardDead(poison)).as("already gone").isFalse();
        awaitState(docket, second, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(docket.job(poison)).isEmpty();
        assertThat(ran).containsExactly(0, 1);
    }

    /** A job's own option wins over its kind's: continue for this one job. */
    @Test
    void aJobsOwnHaltOptionWinsOverItsKinds() {
        Docket docket = docket(b -> b.kind(JobKind.of("step", Step.class)
                .defaults(KindDefaults.builder().haltSequenceOnDeath(true).build()).build()));
        docket.enqueue("step", new Step("a", 0), JobOptions.builder().sequenceKey("a").haltSequenceOnDeath(false).build());
        docket.enqueue("step", new Step("a", 1), key("a"));
        assertThat(Queries.longs(dataSource(), schema, "SELECT CASE WHEN sequence_halt THEN 1 ELSE 0 END FROM {s}.jobs ORDER BY id"))
                .containsExactly(0L, 1L);
    }

    /** "Why is this job not running" names the head that a waiting job waits for. */
    @Test
    void explainNamesTheHeadAheadInTheSequence() {
        Docket docket = docket();
        long head = docket.enqueue("step", new Step("orders-42", 0), key("orders-42"));
        docket.enqueue("step", new Step("orders-42", 1), key("orders-42"));
        long third = docket.enqueue("step", new Step("orders-42", 2), key("orders-42"));

        JobExplanation why = docket.admin().explain(third).orElseThrow();
        assertThat(why.reasons()).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo(JobExplanation.Code.SEQUENCE_WAITING);
            assertThat(r.message()).startsWith("Waiting for job " + head + " ahead in sequence orders-42, and behind 1 waiting jobs");
            assertThat(r.facts()).containsEntry("headJobId", Long.toString(head)).containsEntry("waitingAhead", "1");
        });
    }

    /** Keyed enqueues need READ COMMITTED: an older snapshot could miss a head and make two. */
    @Test
    void aKeyedEnqueueUnderRepeatableReadIsRefused() throws Exception {
        Docket docket = docket();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            assertThatThrownBy(() -> docket.enqueue(c, "step", new Step("a", 0), key("a")))
                    .isInstanceOf(DocketException.class)
                    .hasMessageContaining("READ COMMITTED");
            c.rollback();
            docket.enqueue(c, "step", new Step("-", 0));
            c.rollback();
        }
    }

    @Test
    void sequenceKeysAreValidatedLikeOtherKeys() {
        assertThatThrownBy(() -> JobOptions.builder().sequenceKey("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sequenceKey must be 1 to 512 characters");
        assertThatThrownBy(() -> JobOptions.builder().sequenceKey("x".repeat(513)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(513 characters)");
        assertThatThrownBy(() -> JobOptions.builder().sequenceKey("a\u0000b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JobOptions.builder().sequenceKey("a\ud800b")).isInstanceOf(IllegalArgumentException.class);
        JobOptions o = JobOptions.builder().sequenceKey("k'; DROP TABLE jobs; --").haltSequenceOnDeath(true).build();
        assertThat(o.sequenceKey()).isEqualTo("k'; DROP TABLE jobs; --");
        assertThat(o.toBuilder().build()).isEqualTo(o);
        assertThat(JobOptions.builder().sequenceKey(null).build().sequenceKey()).isNull();
    }

    /** Hostile text reaches the database as a bound value and comes back exactly. */
    @Test
    void hostileKeysAreStoredExactly() {
        Docket docket = docket();
        String hostile = "k'); DELETE FROM jobs; -- \u202e\u00e9";
        long a = docket.enqueue("step", new Step("x", 0), key(hostile));
        long b = docket.enqueue("step", new Step("x", 1), key(hostile));
        assertThat(docket.job(a).orElseThrow().sequenceKey()).isEqualTo(hostile);
        assertThat(states(docket, List.of(a, b))).containsExactly(JobState.READY, JobState.WAITING);
    }
}
