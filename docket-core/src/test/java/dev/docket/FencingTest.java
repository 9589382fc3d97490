package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.JobQueries;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.test.TestPostgres;
import dev.docket.testing.DocketTest;
import dev.docket.testing.Queries;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every worker write about a claimed job is fenced by (attempt, worker id): once a lease is lost
 * and the job claimed again, nothing the old claim writes changes the job. Drives the store
 * directly, with no worker threads, so each step happens exactly when the test says.
 */
class FencingTest extends DocketTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String A = "worker-a";
    private static final String B = "worker-b";

    private Docket docket;
    private Database store;

    @BeforeEach
    void setUp() {
        docket = docket();
        store = new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
    }

    /** A stale worker's completion, retry, dead-letter and release all change nothing; the new holder's completion applies. */
    @Test
    void staleOutcomesChangeNothingAfterRescueAndReclaim() throws Exception {
        long id = docket.enqueue("k", null);
        Fence stale = claimOne(A);
        assertThat(stale).isEqualTo(new Fence(id, 1));
        expireLease(id);

        JobQueries.Rescue rescue = store.jobs().rescueExpired(0, 100);
        assertThat(rescue.rescued()).isEqualTo(1);
        assertThat(rescue.dead()).isZero();
        JobInfo rescued = docket.job(id).orElseThrow();
        assertThat(rescued.state()).isEqualTo(JobState.READY);
        assertThat(rescued.lockedBy()).isNull();
        assertThat(rescued.errors()).singleElement().satisfies(e -> {
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.message()).contains("lost its lease");
            assertThat(e.worker()).isEqualTo(A);
        });

        Fence current = claimOne(B);
        assertThat(current).isEqualTo(new Fence(id, 2));

        for (Outcome outcome : List.of(new Outcome.Completed(stale, null), new Outcome.Retry(stale, 0, "stale retry"),
                new Outcome.Dead(stale, null, "stale error", "stale reason"), new Outcome.Released(stale, true))) {
            assertThat(store.outcomes().writeOutcomes(A, List.of(outcome), true)).as("%s", outcome).isEmpty();
            assertRunningBy(id, B, 2);
        }
        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(stale, null), new Outcome.Retry(stale, 0, "x"),
                new Outcome.Dead(stale, null, "x", "x"), new Outcome.Released(stale, true)), true)).isEmpty();
        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(current, null)), true))
                .as("the right attempt from the wrong worker").isEmpty();
        assertRunningBy(id, B, 2);
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history")).isZero();

        assertThat(store.outcomes().writeOutcomes(B, List.of(new Outcome.Completed(current, null)), true)).containsExactly(current);
        JobInfo done = docket.job(id).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(done.errors()).hasSize(1);
        assertThat(store.outcomes().writeOutcomes(B, List.of(new Outcome.Completed(current, null)), true))
                .as("an outcome applies once").isEmpty();
    }

    /**
     * Claims commit without waiting for their WAL flush, so a database crash can lose a claim whose
     * handler already ran. The job is then back as it was before the claim; the handler's outcome
     * must change nothing and the job must run again (at least once, never a lost outcome).
     */
    @Test
    void claimLostInACrashFencesOutItsOutcomeAndTheJobRunsAgain() throws Exception {
        long id = docket.enqueue("k", null);
        Fence lost = claimOne(A);
        execute("UPDATE {s}.jobs SET state = 'ready', attempt = 0, locked_by = NULL, lease_until = NULL,"
                + " attempted_at = NULL WHERE id = " + id);

        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(lost, null)), true)).isEmpty();
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);

        Fence again = claimOne(B);
        assertThat(again).isEqualTo(new Fence(id, 1));
        assertThat(store.outcomes().writeOutcomes(B, List.of(new Outcome.Completed(again, null)), true)).containsExactly(again);
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    /** The claim's synchronous_commit = off is local to its transaction: the pooled connection keeps the default. */
    @Test
    void claimLeavesItsConnectionsCommitModeAsItFoundIt() throws Exception {
        try (var pool = TestPostgres.get().pool(1)) {
            Database onePool = new Database(pool, new SchemaName(schema), PayloadCodec.defaultMapper());
            docket.enqueue("k", null);
            try (var c = pool.getConnection(); var st = c.createStatement()) {
                st.execute("SET synchronous_commit = on"); // the test server defaults to off
            }
            assertThat(onePool.claims().claim("default", 1, LEASE, Map.of(), A)).hasSize(1);
            assertThat(synchronousCommit(pool)).isEqualTo("on");
        }
    }

    private static String synchronousCommit(javax.sql.DataSource pool) throws SQLException {
        try (var c = pool.getConnection(); var rs = c.createStatement().executeQuery("SHOW synchronous_commit")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** A worker that claims the same job again (attempt 2) fences out its own attempt-1 writes. */
    @Test
    void sameWorkerReclaimFencesOutItsOwnOlderAttempt() throws Exception {
        long id = docket.enqueue("k", null);
        Fence first = claimOne(A);
        expireLease(id);
        store.jobs().rescueExpired(0, 100);
        Fence second = claimOne(A);
        assertThat(second).isEqualTo(new Fence(id, 2));

        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Retry(first, 0, "old attempt failed")), true)).isEmpty();
        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(first, null)), true)).isEmpty();
        assertRunningBy(id, A, 2);
        assertThat(docket.job(id).orElseThrow().errors()).hasSize(1);

        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Retry(second, 60_000, "new attempt failed")), true))
                .containsExactly(second);
        JobInfo retried = docket.job(id).orElseThrow();
        assertThat(retried.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(retried.errors()).extracting(JobError::attempt).containsExactly(1, 2);
    }

    /**
     * When one batch holds both a stale attempt's outcome and the current attempt's outcome for the
     * same job, the result names the fence that applied, in either order.
     */
    @Test
    void batchWithStaleAndCurrentOutcomeOfOneJobReportsTheCurrentFence() throws Exception {
        long id1 = docket.enqueue("k", null);
        long id2 = docket.enqueue("k", null);
        List<ClaimedJob> claimed = store.claims().claim("default", 2, LEASE, Map.of(), A);
        assertThat(claimed).hasSize(2);
        expireLease(id1);
        expireLease(id2);
        store.jobs().rescueExpired(0, 100);
        assertThat(store.claims().claim("default", 2, LEASE, Map.of(), A)).extracting(ClaimedJob::attempt).containsOnly(2);

        Set<Fence> staleFirst = store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(new Fence(id1, 1), null),
                new Outcome.Completed(new Fence(id1, 2), null)), true);
        Set<Fence> currentFirst = store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(new Fence(id2, 2), null),
                new Outcome.Completed(new Fence(id2, 1), null)), true);

        assertThat(staleFirst).containsExactly(new Fence(id1, 2));
        assertThat(currentFirst).containsExactly(new Fence(id2, 2));
        assertThat(docket.job(id1).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        assertThat(docket.job(id2).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }

    /**
     * A heartbeat never waits for a row another transaction holds (the worker's own completer may be
     * writing it in another order): it skips the row, extends the rest, and the held row is not returned.
     */
    @Test
    @org.junit.jupiter.api.Timeout(20)
    void heartbeatSkipsRowsAnotherTransactionHolds() throws Exception {
        List<Long> ids = docket.enqueueAll(IntStream.range(0, 2).mapToObj(i -> NewJob.of("k", null)).toList());
        store.claims().claim("default", 2, Duration.ofSeconds(10), Map.of(), A);
        Fence locked = new Fence(ids.get(0), 1);
        Fence free = new Fence(ids.get(1), 1);
        try (java.sql.Connection other = dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (java.sql.Statement st = other.createStatement()) {
                st.execute("SELECT id FROM " + schema + ".jobs WHERE id = " + locked.id() + " FOR UPDATE");
            }
            // The lock is released only after the heartbeat returns, on this same thread: a heartbeat
            // that waited for the row could never return (the @Timeout ends the test instead).
            assertThat(heartbeat(A, List.of(locked, free), LEASE)).containsExactly(free);
            assertThat(queryLong("SELECT count(*) FROM (SELECT id FROM {s}.jobs WHERE id = ? FOR UPDATE SKIP LOCKED) x",
                    locked.id())).as("the row was still held when the heartbeat returned").isZero();
            other.rollback();
        }
        assertThat(heartbeat(A, List.of(locked, free), LEASE)).containsExactlyInAnyOrder(locked, free);
    }

    /** A heartbeat extends only the leases its worker still holds at that attempt, and returns exactly those fences. */
    @Test
    void heartbeatExtendsOnlyHeldLeases() throws Exception {
        List<Long> ids = docket.enqueueAll(IntStream.range(0, 4).mapToObj(i -> NewJob.of("k", null)).toList());
        List<ClaimedJob> claimed = store.claims().claim("default", 4, Duration.ofSeconds(10), Map.of(), A);
        assertThat(claimed).extracting(ClaimedJob::id).containsExactlyInAnyOrderElementsOf(ids);
        Fence held1 = new Fence(ids.get(0), 1);
        Fence held2 = new Fence(ids.get(1), 1);
        Fence lost = new Fence(ids.get(2), 1);
        Fence finished = new Fence(ids.get(3), 1);

        expireLease(lost.id());
        store.jobs().rescueExpired(0, 100);
        assertThat(claimOne(B)).isEqualTo(new Fence(lost.id(), 2));
        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(finished, null)), true)).containsExactly(finished);
        Map<Long, Object> before = leases();

        Set<Fence> held = heartbeat(A, List.of(held1, held2, lost, finished, new Fence(lost.id(), 2),
                new Fence(Long.MAX_VALUE, 1)), Duration.ofMinutes(10));

        assertThat(held).containsExactlyInAnyOrder(held1, held2);
        Map<Long, Object> after = leases();
        assertThat(after.get(lost.id())).as("B's lease untouched").isEqualTo(before.get(lost.id()));
        for (Fence f : List.of(held1, held2)) {
            assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ? AND lease_until > now() + interval '9 minutes'",
                    f.id())).as("lease of %s extended on the database clock", f).isEqualTo(1);
            assertThat(after.get(f.id())).isNotEqualTo(before.get(f.id()));
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ? AND lease_until < now() + interval '1 minute'",
                lost.id())).isEqualTo(1);
        assertThat(heartbeat(B, List.of(held1), LEASE)).as("another worker's heartbeat").isEmpty();
        assertThat(heartbeat(A, List.of(), LEASE)).isEmpty();
    }

    /** Once a running job is cancelled, its worker's heartbeat and every outcome it writes are fenced out. */
    @Test
    void cancelledJobFencesOutItsWorker() throws Exception {
        long id = docket.enqueue("k", null);
        Fence fence = claimOne(A);

        assertThat(docket.cancel(id)).isTrue();

        assertThat(heartbeat(A, List.of(fence), LEASE)).isEmpty();
        for (Outcome outcome : List.of(new Outcome.Completed(fence, null), new Outcome.Retry(fence, 0, "late"),
                new Outcome.Dead(fence, null, "late", "late"), new Outcome.Released(fence, true))) {
            assertThat(store.outcomes().writeOutcomes(A, List.of(outcome), true)).as("%s", outcome).isEmpty();
        }
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.CANCELLED);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE id = ?", id)).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs")).isZero();
        assertThat(docket.cancel(id)).as("cancelling twice").isFalse();
    }

    /** Rescue leaves running jobs with a live lease alone. */
    @Test
    void rescueIgnoresUnexpiredLeases() throws Exception {
        long id = docket.enqueue("k", null);
        claimOne(A);

        JobQueries.Rescue rescue = store.jobs().rescueExpired(0, 100);

        assertThat(rescue.rescued() + rescue.dead()).isZero();
        assertRunningBy(id, A, 1);
    }

    /** A job whose lease expires on its last attempt goes to the dead-letter table, with the reason and the lost-lease error. */
    @Test
    void rescueAtMaxAttemptsSendsToDeadLetterTable() throws Exception {
        long id = docket.enqueue("k", null, JobOptions.builder().maxAttempts(1).build());
        claimOne(A);
        expireLease(id);

        JobQueries.Rescue rescue = store.jobs().rescueExpired(0, 100);

        assertThat(rescue.dead()).isEqualTo(1);
        assertThat(rescue.rescued()).isZero();
        JobInfo dead = docket.job(id).orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.deadReason()).contains("attempts exhausted");
        assertThat(dead.errors()).singleElement().satisfies(e -> {
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.message()).contains("lost its lease");
        });
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = ?", id)).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(store.outcomes().writeOutcomes(A, List.of(new Outcome.Completed(new Fence(id, 1), null)), true))
                .as("the lost worker cannot complete a dead job").isEmpty();
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.DEAD);
    }

    private Fence claimOne(String worker) throws SQLException {
        List<ClaimedJob> jobs = store.claims().claim("default", 1, LEASE, Map.of(), worker);
        assertThat(jobs).hasSize(1);
        return jobs.getFirst().fence();
    }

    private void expireLease(long id) {
        execute("UPDATE {s}.jobs SET lease_until = now() - interval '1 second' WHERE id = " + id);
    }

    private void assertRunningBy(long id, String worker, int attempt) {
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.RUNNING);
        assertThat(job.lockedBy()).isEqualTo(worker);
        assertThat(job.attempt()).isEqualTo(attempt);
    }

    private Map<Long, Object> leases() {
        Map<Long, Object> leases = new java.util.HashMap<>();
        for (Map<String, Object> row : Queries.rows(dataSource(), schema, "SELECT id, lease_until::text AS lease FROM {s}.jobs")) {
            leases.put((Long) row.get("id"), row.get("lease"));
        }
        return leases;
    }

    /** Heartbeats {@code fences} with one lease for all, as for a worker without per-kind leases. */
    private Set<Fence> heartbeat(String worker, List<Fence> fences, Duration lease) throws SQLException {
        return store.outcomes().heartbeatMany(worker, fences, Collections.nCopies(fences.size(), lease), false);
    }
}
