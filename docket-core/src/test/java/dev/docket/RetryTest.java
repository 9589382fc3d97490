package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.testing.DocketTest;
import dev.docket.testing.Queries;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How failed attempts are retried, and when a job goes to the dead-letter table instead. */
class RetryTest extends DocketTest {

    record Count(int n) {
    }

    record Scores(Map<String, Integer> byName) {
    }

    /** A handler that fails twice and then succeeds completes at attempt 3, with both failures in its history. */
    @Test
    void flakyHandlerCompletesAfterTwoRetries() {
        Docket docket = docket(b -> b.retryPolicy("flaky",
                new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(2), 0.5)));
        AtomicInteger calls = new AtomicInteger();
        worker(docket, w -> w.queue("default", 4).workerId("retry-worker")
                .maintenanceInterval(Duration.ofMillis(50))
                .handler("flaky", JsonNode.class, (payload, ctx) -> {
                    calls.incrementAndGet();
                    if (ctx.attempt() < 3) {
                        throw new RuntimeException("flaky failure on attempt " + ctx.attempt());
                    }
                }));

        long id = docket.enqueue("flaky", null);
        JobInfo job = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(15));

        assertThat(job.attempt()).isEqualTo(3);
        assertThat(job.maxAttempts()).as("from the kind's retry policy").isEqualTo(5);
        assertThat(calls).hasValue(3);
        assertThat(job.errors()).extracting(JobError::attempt).containsExactly(1, 2);
        assertThat(job.errors().get(0).message()).contains("RuntimeException: flaky failure on attempt 1");
        assertThat(job.errors().get(1).message()).contains("RuntimeException: flaky failure on attempt 2");
        assertThat(job.errors()).extracting(JobError::worker).containsOnly("retry-worker");
        assertThat(job.errors().get(1).at()).isAfter(job.errors().get(0).at());
    }

    /**
     * Each retry waits min(cap, base * 2^(attempt-1)) spread by ±jitter and never above the cap,
     * measured on the database clock: run_at minus the failure's recorded time. Twenty jobs sample
     * the jitter; the test makes them due itself instead of waiting out the backoff.
     */
    @Test
    @Timeout(60)
    void retryDelaysFollowPolicyJitterAndCapOnDatabaseClock() {
        Duration base = Duration.ofSeconds(10);
        Duration cap = Duration.ofSeconds(25);
        double jitter = 0.5;
        Docket docket = docket(b -> b.retryPolicy("failing", new RetryPolicy(10, base, cap, jitter)));
        worker(docket, w -> w.queue("default", 20)
                .maintenanceInterval(Duration.ofMillis(50))
                .handler("failing", JsonNode.class, (payload, ctx) -> {
                    throw new IllegalStateException("always fails");
                }));
        docket.enqueueAll(IntStream.range(0, 20).mapToObj(i -> NewJob.of("failing", null)).toList());

        for (int attempt = 1; attempt <= 3; attempt++) {
            int failures = attempt;
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20)).until(() -> queryLong(
                    "SELECT count(*) FROM {s}.jobs WHERE state = 'scheduled' AND jsonb_array_length(errors) = ?",
                    failures) == 20);
            List<Long> delays = Queries.longs(dataSource(), schema, """
                    SELECT (extract(epoch FROM run_at - (errors -> -1 ->> 'at')::timestamptz) * 1000)::bigint
                      FROM {s}.jobs ORDER BY id""");
            double exponential = Math.min(cap.toMillis(), base.toMillis() * Math.pow(2, attempt - 1));
            long low = (long) Math.floor(exponential * (1 - jitter)) - 2;
            long high = (long) Math.ceil(Math.min(cap.toMillis(), exponential * (1 + jitter))) + 2;

            assertThat(delays).as("backoff after attempt %d, in ms", attempt).hasSize(20)
                    .allSatisfy(d -> assertThat(d).isBetween(low, high))
                    .allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(cap.toMillis()));
            assertThat(new HashSet<>(delays)).as("jitter spreads the delays").hasSizeGreaterThan(1);
            execute("UPDATE {s}.jobs SET run_at = now() WHERE state = 'scheduled'");
        }
    }

    /** PermanentJobFailure sends the job to the dead-letter table at attempt 1, whatever attempts are left. */
    @Test
    void permanentFailureGoesStraightToDeadLetterTable() {
        Docket docket = docket();
        worker(docket, w -> w.queue("default", 2)
                .handler("charge", JsonNode.class, (payload, ctx) -> {
                    throw new PermanentJobFailure("customer 17 was deleted");
                }));

        long id = docket.enqueue("charge", null);
        JobInfo job = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(10));

        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.maxAttempts()).isEqualTo(20);
        assertThat(job.errors()).singleElement().satisfies(e -> {
            assertThat(e.attempt()).isEqualTo(1);
            assertThat(e.message()).contains("customer 17 was deleted");
        });
        assertThat(job.deadReason()).contains("permanent failure").contains("customer 17 was deleted");
        assertThat(job.finishedAt()).isNotNull();
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = ?", id)).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ?", id)).isZero();
    }

    /** A job that always fails dies after exactly its max attempts (the job's own value wins over the policy's), with every error in order. */
    @Test
    void exhaustedAttemptsGoToDeadLetterTableWithEveryError() {
        Docket docket = docket(b -> b.retryPolicy("doomed",
                new RetryPolicy(10, Duration.ofMillis(10), Duration.ofMillis(20), 0)));
        AtomicInteger calls = new AtomicInteger();
        worker(docket, w -> w.queue("default", 2)
                .maintenanceInterval(Duration.ofMillis(50))
                .handler("doomed", JsonNode.class, (payload, ctx) -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("doomed attempt " + ctx.attempt());
                }));

        long id = docket.enqueue("doomed", null, JobOptions.builder().maxAttempts(3).build());
        JobInfo job = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(15));

        assertThat(job.attempt()).isEqualTo(3);
        assertThat(job.maxAttempts()).isEqualTo(3);
        assertThat(calls).hasValue(3);
        assertThat(job.errors()).extracting(JobError::attempt).containsExactly(1, 2, 3);
        for (int i = 0; i < 3; i++) {
            assertThat(job.errors().get(i).message()).contains("IllegalStateException: doomed attempt " + (i + 1));
        }
        assertThat(job.errors()).extracting(JobError::at).isSorted();
        assertThat(job.deadReason()).contains("attempts exhausted");
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = ?", id)).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
    }

    /** A payload that does not map to the handler's type dies at attempt 1 without running the handler, and its value stays out of the error. */
    @Test
    void payloadThatDoesNotMapDiesWithoutLeakingIt() {
        Docket docket = docket();
        AtomicInteger calls = new AtomicInteger();
        worker(docket, w -> w.queue("default", 2)
                .handler("count", Count.class, (payload, ctx) -> calls.incrementAndGet()));

        long id = docket.enqueue("count", Map.of("n", "secret-7f3a9"));
        JobInfo job = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(10));

        assertThat(job.attempt()).isEqualTo(1);
        assertThat(calls).hasValue(0);
        assertThat(job.errors()).singleElement().satisfies(e -> assertThat(e.message())
                .contains("payload does not map to " + Count.class.getName())
                .doesNotContain("secret-7f3a9"));
        assertThat(job.deadReason()).doesNotContain("secret-7f3a9");
    }

    /** Map keys are payload data too (here an e-mail address): a mapping error must not quote them in the error or dead reason. */
    @Test
    void payloadMappingErrorDoesNotLeakMapKeys() {
        Docket docket = docket();
        worker(docket, w -> w.queue("default", 2)
                .handler("scores", Scores.class, (payload, ctx) -> {
                }));

        long id = docket.enqueue("scores", Map.of("byName", Map.of("alice@example.com", "not-a-number")));
        JobInfo job = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(10));

        assertThat(job.errors()).singleElement().satisfies(e -> assertThat(e.message())
                .contains("payload does not map to")
                .doesNotContain("alice@example.com")
                .doesNotContain("not-a-number"));
        assertThat(job.deadReason()).doesNotContain("alice@example.com");
    }

    /** A job of a kind this worker has no handler for fails its attempt and is retried on the kind's policy, not lost. */
    @Test
    void jobWithoutHandlerIsRetriedNotLost() {
        Docket docket = docket(b -> b.retryPolicy("orphan",
                new RetryPolicy(20, Duration.ofHours(1), Duration.ofHours(2), 0)));
        worker(docket, w -> w.queue("default", 2).workerId("no-orphans")
                .handler("known", JsonNode.class, (payload, ctx) -> {
                }));

        long id = docket.enqueue("orphan", null);
        JobInfo job = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> docket.job(id).orElseThrow(), j -> !j.errors().isEmpty() && j.state() != JobState.RUNNING);

        assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(job.attempt()).isEqualTo(1);
        assertThat(job.errors()).singleElement().satisfies(e -> {
            assertThat(e.message()).contains("no handler for kind 'orphan'");
            assertThat(e.worker()).isEqualTo("no-orphans");
            assertThat(job.runAt()).isEqualTo(e.at().plus(Duration.ofHours(1)));
        });
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE id = ?", id)).isEqualTo(1);
    }
}
