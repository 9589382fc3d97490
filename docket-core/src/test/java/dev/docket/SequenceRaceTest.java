package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.DocketTest;
import dev.docket.testing.Queries;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A keyed enqueue racing the removal of its key's head: each side waits for the other's transaction
 * on the key's lock, so the new job is either promoted by the removal or becomes the head itself,
 * never stranded behind a head that is gone, and never a second head.
 */
class SequenceRaceTest extends DocketTest {

    record Step(String key, int n) {
    }

    private static JobOptions key(String key) {
        return JobOptions.builder().sequenceKey(key).build();
    }

    /** Transactions waiting for the lock of this test's sequence {@code key}. */
    private long waitingForKey(String key) {
        return queryLong("""
                SELECT count(*) FROM pg_locks
                 WHERE locktype = 'advisory' AND NOT granted
                   AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)""",
                "docket.sequence." + schema + "." + key);
    }

    /** The head completes while a transaction that enqueued behind it is still open: the completion waits, then promotes. */
    @Test
    @Timeout(30)
    void aCompletionWaitsForAnOpenEnqueueOfItsKeyAndThenPromotesTheNewJob() throws Exception {
        Docket docket = docket();
        long head = docket.enqueue("step", new Step("a", 0), key("a"));
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            long behind = docket.enqueue(tx, "step", new Step("a", 1), key("a"));
            CompletableFuture<Boolean> cancel = CompletableFuture.supplyAsync(() -> docket.cancel(head));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingForKey("a") == 1);
            assertThat(cancel).isNotDone();
            tx.commit();
            assertThat(cancel.get()).isTrue();
            assertThat(docket.job(behind).orElseThrow().state()).isEqualTo(JobState.READY);
        }
    }

    /** An enqueue while the head's removal is uncommitted waits for it, then sees the key free and becomes the head. */
    @Test
    @Timeout(30)
    void anEnqueueWaitsForAnOpenRemovalOfItsHeadAndThenBecomesTheHead() throws Exception {
        Docket docket = docket();
        long head = docket.enqueue("step", new Step("a", 0), key("a"));
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            try (Statement st = tx.createStatement()) {
                st.execute("DELETE FROM " + schema + ".jobs WHERE id = " + head);
            }
            CompletableFuture<Long> enqueue = CompletableFuture.supplyAsync(
                    () -> docket.enqueue("step", new Step("a", 1), key("a")));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingForKey("a") == 1);
            assertThat(enqueue).isNotDone();
            tx.commit();
            assertThat(docket.job(enqueue.get()).orElseThrow().state()).isEqualTo(JobState.READY);
        }
    }

    /**
     * A completer's batch takes the heads of two sequences out while a bulk enqueue of both keys and an
     * open transaction holding one of them are in flight. The batch takes its keys in the enqueue's
     * order (sorted), so each waits for the other in turn. Taken in row order (the head of {@code b}
     * is the older), the batch held {@code b} while it waited for {@code a}, the enqueue held {@code a}
     * while it waited for {@code b}, and PostgreSQL aborted one of them as a deadlock.
     */
    @Test
    @Timeout(30)
    void aBatchThatCompletesSeveralHeadsTakesTheirKeysInTheOrderABulkEnqueueDoes() throws Exception {
        Database store = store();
        List<ClaimedJob> heads = claimHeadsOfBThenA(store, JobOptions.builder());
        List<Outcome> completed = heads.stream()
                .map(j -> (Outcome) new Outcome.Completed(j.fence(), j.sequenceKey())).toList();
        removingTheHeadsWaitsInTheEnqueuesOrder(() -> store.outcomes().writeOutcomes("worker-a", completed, true));
    }

    /** The same for a rescue page that sends two heads whose leases expired to the dead-letter table. */
    @Test
    @Timeout(30)
    void aRescueThatKillsSeveralHeadsTakesTheirKeysInTheOrderABulkEnqueueDoes() throws Exception {
        Database store = store();
        claimHeadsOfBThenA(store, JobOptions.builder().maxAttempts(1));
        execute("UPDATE {s}.jobs SET lease_until = now() - interval '1 second'");
        removingTheHeadsWaitsInTheEnqueuesOrder(() -> store.jobs().rescueExpired(0, 100));
        assertThat(queryLong("SELECT count(*) FROM " + schema + ".dead_jobs")).isEqualTo(2);
    }

    private Database store() {
        return new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
    }

    /** Enqueues the heads of keys b and a, in that order (b's is the older), and claims both. */
    private List<ClaimedJob> claimHeadsOfBThenA(Database store, JobOptions.Builder options) throws SQLException {
        Docket docket = docket();
        docket.enqueue("step", new Step("b", 0), options.sequenceKey("b").build());
        docket.enqueue("step", new Step("a", 0), options.sequenceKey("a").build());
        List<ClaimedJob> heads = store.claims().claim("default", 2, Duration.ofMinutes(1), Map.of(), "worker-a");
        assertThat(heads).extracting(ClaimedJob::sequenceKey).containsExactlyInAnyOrder("a", "b");
        return heads;
    }

    /**
     * Runs {@code removeHeads} (which takes both heads out) while a transaction holds key b, then a bulk
     * enqueue of a and b: the removal must wait for b holding a, the enqueue for a, and both finish once
     * the transaction commits, the job enqueued in it promoted.
     */
    private void removingTheHeadsWaitsInTheEnqueuesOrder(Callable<?> removeHeads) throws Exception {
        Docket docket = docket();
        // Both waiters at once: the common pool may have a single thread on a small machine.
        ExecutorService waiters = Executors.newFixedThreadPool(2);
        try (Connection holdsB = dataSource().getConnection()) {
            holdsB.setAutoCommit(false);
            long behindB = docket.enqueue(holdsB, "step", new Step("b", 1), key("b"));
            Future<?> removal = waiters.submit(removeHeads);
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingForKey("b") == 1);
            Future<List<Long>> enqueue = waiters.submit(() -> docket.enqueueAll(List.of(
                    NewJob.of("step", new Step("a", 1), key("a")), NewJob.of("step", new Step("b", 2), key("b")))));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitingForKey("a") + waitingForKey("b") == 2);
            holdsB.commit();

            removal.get();
            List<Long> enqueued = enqueue.get();
            assertThat(docket.job(behindB).orElseThrow().state()).isEqualTo(JobState.READY);
            assertThat(docket.job(enqueued.get(0)).orElseThrow().state()).isEqualTo(JobState.READY);
            assertThat(docket.job(enqueued.get(1)).orElseThrow().state()).isEqualTo(JobState.WAITING);
        } finally {
            waiters.shutdownNow();
        }
    }

    /** Sixteen threads enqueue to the same idle keys at once: exactly one head per key. */
    @Test
    @Timeout(60)
    void concurrentEnqueuesMakeExactlyOneHeadPerKey() throws Exception {
        Docket docket = docket();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 20; i++) {
                        String k = "k" + (i % 4);
                        if (thread % 2 == 0) {
                            docket.enqueue("step", new Step(k, i), key(k));
                        } else {
                            docket.enqueueAll(List.of(NewJob.of("step", new Step(k, i), key(k)),
                                    NewJob.of("step", new Step("k" + ((i + 1) % 4), i), key("k" + ((i + 1) % 4)))));
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        // Not necessarily the oldest: an id is drawn before the key's lock is taken, so the first of two
        // racing transactions to take the lock may hold the larger id (their jobs interleave, as documented).
        assertThat(Queries.longs(dataSource(), schema, """
                SELECT count(*) FILTER (WHERE state <> 'waiting') FROM {s}.jobs GROUP BY sequence_key"""))
                .as("one head per key").hasSize(4).containsOnly(1L);
    }

    /**
     * Enqueues keep arriving while two workers complete heads: every job completes (no wake-up lost),
     * and no two jobs of a key ever ran at once, in enqueue order per enqueuing thread.
     */
    @Test
    @Timeout(90)
    void enqueuesRacingCompletionsLoseNoJobAndNeverOverlap() throws Exception {
        Docket docket = docket();
        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        Map<String, Integer> lastPerProducer = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        JobHandler<Step> handler = (step, ctx) -> {
            if (inFlight.computeIfAbsent(step.key(), k -> new AtomicInteger()).incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            // n encodes producer * 1000 + sequence number: per producer and key, numbers only rise.
            String producer = step.key() + "/" + step.n() / 1000;
            Integer last = lastPerProducer.put(producer, step.n());
            if (last != null && last > step.n()) {
                outOfOrder.incrementAndGet();
            }
            inFlight.get(step.key()).decrementAndGet();
            completed.incrementAndGet();
        };
        worker(docket, w -> w.queue("default", 8).handler("step", Step.class, handler));
        worker(docket, w -> w.queue("default", 8).handler("step", Step.class, handler));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int producer = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 100; i++) {
                        String k = "k" + (i % 5);
                        docket.enqueue("step", new Step(k, producer * 1000 + i), key(k));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> completed.get() == 800);
        // A handler returns before the completer writes its outcome: the last jobs leave the table a little later.
        await("every outcome written").atMost(Duration.ofSeconds(30))
                .until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(overlaps).hasValue(0);
        assertThat(outOfOrder).hasValue(0);
    }
}
