package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.DocketTest;
import dev.docket.testing.Queries;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link JobOptions.Builder#debounce}: enqueues of one kind and key collapse into one job until it starts. */
class DebounceTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    record Sync(int n) {
    }

    private static JobOptions debounce(String key, Duration window) {
        return JobOptions.builder().debounce(key, window).build();
    }

    private Database store() {
        return new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
    }

    private static Enqueued enqueue(Docket docket, String kind, int n, JobOptions options) {
        return docket.enqueueJobs(List.of(NewJob.of(kind, new Sync(n), options))).getFirst();
    }

    private long jobsOfKind(String kind) {
        return queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = ?", kind);
    }

    /**
     * Twenty transactions on twenty connections, released together, each enqueue the same key: one job, which
     * absorbed all twenty, with the payload of the transaction that committed last (commits are taken one at
     * a time and recorded in order; the job's row lock orders the updates as the commits).
     */
    @Test
    @Timeout(60)
    void aTwentyWayConcurrentBurstCollapsesIntoOneJobWithTheLastCommittedPayload() throws Exception {
        Docket docket = docket();
        JobOptions options = debounce("customer-7", Duration.ofHours(1));
        int writers = 20;
        try (HikariDataSource pool = db.pool(writers)) {
            for (int round = 0; round < 3; round++) {
                String kind = "sync-" + round;
                CountDownLatch connected = new CountDownLatch(writers);
                CountDownLatch go = new CountDownLatch(1);
                Object commitLock = new Object();
                List<Integer> commitOrder = new CopyOnWriteArrayList<>();
                List<Enqueued> results = new CopyOnWriteArrayList<>();
                ExecutorService threads = Executors.newFixedThreadPool(writers);
                try {
                    List<Future<?>> done = new ArrayList<>();
                    for (int i = 0; i < writers; i++) {
                        int n = i;
                        done.add(threads.submit(() -> {
                            try (Connection c = pool.getConnection()) {
                                c.setAutoCommit(false);
                                connected.countDown();
                                go.await();
                                results.add(docket.enqueueJobs(c, List.of(NewJob.of(kind, new Sync(n), options))).getFirst());
                                synchronized (commitLock) {
                                    c.commit();
                                    commitOrder.add(n);
                                }
                            }
                            return null;
                        }));
                    }
                    connected.await();
                    go.countDown();
                    for (Future<?> f : done) {
                        f.get();
                    }
                } finally {
                    threads.shutdownNow();
                }

                assertThat(jobsOfKind(kind)).as("round %d: one job", round).isEqualTo(1);
                assertThat(results).extracting(Enqueued::id).as("every enqueue answers with that job").containsOnly(
                        results.getFirst().id());
                assertThat(results).filteredOn(Enqueued::inserted).as("exactly one enqueue inserted it").hasSize(1);
                JobInfo job = docket.job(results.getFirst().id()).orElseThrow();
                assertThat(JSON.readTree(job.payload()).get("n").asInt()).as("the last committed payload")
                        .isEqualTo(commitOrder.getLast());
                assertThat(JSON.readTree(job.metadata()).at("/docket.debounce/enqueues").asInt()).isEqualTo(writers);
                assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
            }
        }
    }

    /** Each enqueue moves the run time to a window after it: checked in the enqueue's own transaction, whose now() it used. */
    @Test
    void eachEnqueueMovesTheRunTimeToAWindowFromThen() throws Exception {
        Docket docket = docket();
        JobOptions options = debounce("k", Duration.ofMinutes(5));
        long id = enqueue(docket, "sync", 1, options).id();
        for (int i = 2; i <= 3; i++) {
            try (Connection c = dataSource().getConnection()) {
                c.setAutoCommit(false);
                Enqueued again = docket.enqueueJobs(c, List.of(NewJob.of("sync", new Sync(i), options))).getFirst();
                assertThat(again).isEqualTo(new Enqueued(id, false));
                assertThat(Queries.longs(c, schema, "SELECT count(*) FROM {s}.jobs WHERE id = ? "
                        + "AND run_at = now() + interval '5 minutes' AND state = 'scheduled'", id)).containsExactly(1L);
                c.commit();
            }
        }
        assertThat(JSON.readTree(docket.job(id).orElseThrow().payload()).get("n").asInt()).isEqualTo(3);
        assertThat(enqueue(docket, "other-kind", 9, options).inserted())
                .as("the key is per kind").isTrue();
    }

    /** However many enqueues follow, the job runs no later than its maximum wait after the first. */
    @Test
    void theMaximumWaitCapsTheRunTime() throws Exception {
        Docket docket = docket();
        JobOptions options = JobOptions.builder().debounce("k", Duration.ofHours(1), Duration.ofHours(1)).build();
        long id = enqueue(docket, "sync", 1, options).id();
        Instant deadline = docket.job(id).orElseThrow().runAt();
        enqueue(docket, "sync", 2, options);
        assertThat(docket.job(id).orElseThrow().runAt()).as("a window from the second enqueue is past the deadline")
                .isEqualTo(deadline);

        // The deadline has passed (as if a steady stream had kept coming for the whole maximum wait).
        db.execute("UPDATE " + schema + ".jobs SET debounce_deadline = now() - interval '1 second', "
                + "run_at = now() - interval '1 second', state = 'ready' WHERE id = " + id);
        Enqueued again = enqueue(docket, "sync", 3, options);
        assertThat(again).isEqualTo(new Enqueued(id, false));
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).as("past its deadline an enqueue no longer holds it back").isEqualTo(JobState.READY);
        assertThat(JSON.readTree(job.payload()).get("n").asInt()).isEqualTo(3);
    }

    /** The default maximum wait is ten windows. */
    @Test
    void theDefaultMaximumWaitIsTenWindows() throws Exception {
        Docket docket = docket();
        long id = enqueue(docket, "sync", 1, debounce("k", Duration.ofMinutes(3))).id();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ? "
                + "AND debounce_deadline = created_at + interval '30 minutes'", id)).isEqualTo(1);
        assertThat(JobOptions.DEFAULT_DEBOUNCE_MAX_WAIT_WINDOWS).isEqualTo(10);
    }

    /** Once claimed, a job absorbs nothing: the next enqueue makes the next job, and the running one keeps its payload. */
    @Test
    void aStartedJobDoesNotAbsorbNewEnqueues() throws Exception {
        Docket docket = docket();
        JobOptions options = debounce("k", Duration.ofHours(1));
        long first = enqueue(docket, "sync", 1, options).id();
        assertThat(docket.admin().runNow(first, "test").edited()).isTrue();
        List<ClaimedJob> claimed = store().claims().claim("default", 10, Duration.ofMinutes(1), Map.of(), "worker-a");
        assertThat(claimed).extracting(ClaimedJob::id).containsExactly(first);

        Enqueued next = enqueue(docket, "sync", 2, options);
        assertThat(next.inserted()).isTrue();
        assertThat(next.id()).isNotEqualTo(first);
        assertThat(JSON.readTree(docket.job(first).orElseThrow().payload()).get("n").asInt()).isEqualTo(1);
        assertThat(enqueue(docket, "sync", 3, options)).isEqualTo(new Enqueued(next.id(), false));

        // The first job goes back to scheduled (a retry's backoff) beside the next one: no collision, no absorbing.
        db.execute("UPDATE " + schema + ".jobs SET state = 'scheduled', run_at = now() + interval '1 minute', "
                + "attempt = 0, locked_by = NULL, lease_until = NULL WHERE id = " + first);
        assertThat(enqueue(docket, "sync", 4, options)).isEqualTo(new Enqueued(next.id(), false));
        assertThat(JSON.readTree(docket.job(first).orElseThrow().payload()).get("n").asInt()).isEqualTo(1);
    }

    /**
     * A debounced enqueue racing the claim of its key's due job, released together, many rounds: the enqueue
     * either reached the job first (it reports the job's id, the job moved a window ahead with the new payload,
     * and the claim found nothing) or the claim did (the job runs with its old payload and the enqueue made the
     * next job). Never an enqueue reported absorbed into a job that then ran without it.
     */
    @Test
    @Timeout(120)
    void anEnqueueRacingTheClaimOfItsJobIsAbsorbedBeforeOrMakesTheNextJob() throws Exception {
        Docket docket = docket();
        Database store = store();
        JobOptions options = JobOptions.builder().queue("race").debounce("k", Duration.ofHours(1)).build();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 100; round++) {
                long first = enqueue(docket, "sync", 1, options).id();
                assertThat(docket.admin().runNow(first, "test").edited()).isTrue();
                CyclicBarrier start = new CyclicBarrier(2);
                Future<List<ClaimedJob>> claim = threads.submit(() -> {
                    start.await();
                    return store.claims().claim("race", 1, Duration.ofMinutes(1), Map.of(), "worker-race");
                });
                Future<Enqueued> enqueue = threads.submit(() -> {
                    start.await();
                    return enqueue(docket, "sync", 2, options);
                });
                Enqueued second = enqueue.get();
                List<ClaimedJob> claimed = claim.get();
                if (second.id() == first) {
                    assertThat(second.inserted()).isFalse();
                    assertThat(claimed).as("round %d: absorbed, so moved a window ahead before the claim", round).isEmpty();
                    JobInfo job = docket.job(first).orElseThrow();
                    assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
                    assertThat(JSON.readTree(job.payload()).get("n").asInt()).isEqualTo(2);
                } else {
                    assertThat(second.inserted()).as("round %d: a new job", round).isTrue();
                    assertThat(claimed).as("round %d: the claim took the first job", round).extracting(ClaimedJob::id)
                            .containsExactly(first);
                    assertThat(JSON.readTree(claimed.getFirst().payload()).get("n").asInt()).isEqualTo(1);
                    assertThat(docket.job(second.id()).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
                }
                db.execute("DELETE FROM " + schema + ".jobs");
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** One enqueueAll with the same key twice: one job, the later payload. */
    @Test
    void aBatchWithOneKeyTwiceMakesOneJob() throws Exception {
        Docket docket = docket();
        JobOptions options = debounce("k", Duration.ofHours(1));
        List<Enqueued> result = docket.enqueueJobs(List.of(NewJob.of("sync", new Sync(1), options),
                NewJob.of("plain", new Sync(0)), NewJob.of("sync", new Sync(2), options)));
        assertThat(result.get(0).inserted()).isTrue();
        assertThat(result.get(2)).isEqualTo(new Enqueued(result.get(0).id(), false));
        assertThat(jobsOfKind("sync")).isEqualTo(1);
        assertThat(JSON.readTree(docket.job(result.get(0).id()).orElseThrow().payload()).get("n").asInt()).isEqualTo(2);
    }

    @Test
    void explainSaysItIsDebouncedAndUntilWhen() throws Exception {
        Docket docket = docket();
        JobOptions options = debounce("customer-7", Duration.ofHours(1));
        long id = enqueue(docket, "sync", 1, options).id();
        enqueue(docket, "sync", 2, options);
        JobExplanation.Reason reason = docket.admin().explain(id).orElseThrow().reasons().getFirst();
        assertThat(reason.code()).isEqualTo(JobExplanation.Code.DEBOUNCED);
        assertThat(reason.facts()).containsEntry("debounceKey", "customer-7").containsEntry("enqueues", "2")
                .containsEntry("runAt", docket.job(id).orElseThrow().runAt().toString()).containsKey("deadline");
        assertThat(reason.message()).contains("customer-7").contains("2 enqueues");
    }

    @Test
    void hostileValuesAreRefusedWithTheirReason() {
        JobOptions.Builder b = JobOptions.builder();
        assertThatThrownBy(() -> b.debounce("k", Duration.ofSeconds(-1))).hasMessageContaining("debounce window");
        assertThatThrownBy(() -> b.debounce("k", Duration.ZERO)).hasMessageContaining("debounce window");
        assertThatThrownBy(() -> b.debounce("k", Duration.ofDays(367))).hasMessageContaining("366 days");
        assertThatThrownBy(() -> b.debounce("", Duration.ofSeconds(1))).hasMessageContaining("debounce key");
        assertThatThrownBy(() -> b.debounce(null, Duration.ofSeconds(1))).hasMessageContaining("debounce key");
        assertThatThrownBy(() -> b.debounce("x".repeat(513), Duration.ofSeconds(1))).hasMessageContaining("512");
        assertThatThrownBy(() -> b.debounce("a\u0000b", Duration.ofSeconds(1))).hasMessageContaining("NUL");
        assertThatThrownBy(() -> b.debounce("k", Duration.ofSeconds(10), Duration.ofSeconds(5)))
                .hasMessageContaining("maxWait");
        assertThatThrownBy(() -> b.debounce("k", Duration.ofSeconds(10), Duration.ofDays(4000)))
                .hasMessageContaining("maxWait");
        assertThatThrownBy(() -> JobOptions.builder().debounce("k", Duration.ofSeconds(1)).uniqueKey("u").build())
                .hasMessageContaining("uniqueKey");
        assertThatThrownBy(() -> JobOptions.builder().debounce("k", Duration.ofSeconds(1)).runAt(Instant.now()).build())
                .hasMessageContaining("runAt");
        assertThatThrownBy(() -> JobOptions.builder().debounce("k", Duration.ofSeconds(1)).sequenceKey("s").build())
                .hasMessageContaining("sequenceKey");
        assertThatThrownBy(() -> JobOptions.builder().debounce("k", Duration.ofSeconds(1)).dependsOn(1).build())
                .hasMessageContaining("dependsOn");
        assertThatThrownBy(() -> JobOptions.builder().debounce("k", Duration.ofSeconds(1)).awaitSignal("go").build())
                .hasMessageContaining("awaitSignal");
        assertThat(JobOptions.builder().debounce("k", Duration.ofDays(366)).build().debounceMaxWait())
                .as("ten windows, at most 3660 days").isEqualTo(Duration.ofDays(3660));
    }

    /** A job without debounce has no key: nothing of this feature touches it. */
    @Test
    void aPlainJobHasNoDebounceKey() {
        Docket docket = docket();
        long id = docket.enqueue("plain", new Sync(1));
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ? AND debounce_key IS NULL "
                + "AND debounce_deadline IS NULL", id)).isEqualTo(1);
    }
}
