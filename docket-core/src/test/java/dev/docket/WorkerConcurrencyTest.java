package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many workers (each with its own Docket instance, as separate nodes would have) competing for one
 * queue: every job runs exactly once, at attempt 1, and ends completed in the history table.
 */
class WorkerConcurrencyTest extends DocketTest {

    record Run(long jobId, int attempt, String workerId) {
    }

    record Work(int index) {
    }

    private final Map<Long, Run> runs = new ConcurrentHashMap<>();
    private final Queue<Run> duplicates = new ConcurrentLinkedQueue<>();

    /** 8 workers × 8 slots over 10,000 pre-enqueued jobs: each job runs once, none is lost or repeated. */
    @Test
    @Tag("load")
    @Timeout(180)
    void eightWorkersRunTenThousandJobsExactlyOnce() {
        runAllExactlyOnce(8, 8, 100, 10_000, Duration.ofSeconds(150));
    }

    /**
     * 8 workers claiming one job per statement over 2,000 jobs: the shape that made
     * {@code id IN (SELECT ... LIMIT 1 FOR UPDATE SKIP LOCKED)} stall for minutes on PostgreSQL 18.
     */
    @Test
    @Timeout(120)
    void eightWorkersClaimingOneAtATimeDoNotStall() {
        runAllExactlyOnce(8, 1, 1, 2_000, Duration.ofSeconds(100));
    }

    /**
     * Outcomes that cannot be written (here the history table is locked) hold the claims back: a
     * worker with 4 slots (claiming nothing ahead) has at most one batch (4) beyond its running
     * handlers claimed and unsettled, however fast its handlers return. Without that bound it claimed
     * all 1,000 jobs, whose leases then ran out while their outcomes waited. (Claiming ahead adds its
     * own bound to this one: see ClaimAheadTest.)
     */
    @Test
    @Timeout(60)
    void claimsWaitForOutcomesThatCannotBeWritten() throws Exception {
        Docket docket = docket();
        docket.enqueueAll(IntStream.range(0, 1000).mapToObj(i -> NewJob.of("work", new Work(i))).toList());
        Set<Integer> ran = ConcurrentHashMap.newKeySet();
        try (java.sql.Connection lock = dataSource().getConnection(); java.sql.Statement st = lock.createStatement()) {
            lock.setAutoCommit(false);
            st.execute("LOCK TABLE " + schema + ".job_history IN EXCLUSIVE MODE");
            worker(docket, b -> b
                    .queue("default", 4)
                    .claimAhead(0)
                    .handler("work", Work.class, (w, ctx) -> ran.add(w.index())));
            await().atMost(Duration.ofSeconds(10)).until(() -> ran.size() == 8);
            await("no claims beyond one batch while outcomes wait").during(Duration.ofSeconds(1))
                    .atMost(Duration.ofSeconds(3)).until(() -> ran.size() == 8
                            && queryLong("SELECT count(*) FROM {s}.jobs WHERE state = 'running'") == 8);
            lock.rollback();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(ran).hasSize(1000);
    }

    private void runAllExactlyOnce(int workers, int concurrency, int maxClaimBatch, int jobs, Duration within) {
        Docket enqueuer = docket();
        Set<Long> enqueued = new HashSet<>();
        for (int from = 0; from < jobs; from += 1000) {
            List<NewJob> chunk = IntStream.range(from, Math.min(jobs, from + 1000))
                    .mapToObj(i -> NewJob.of("work", new Work(i))).toList();
            enqueued.addAll(enqueuer.enqueueAll(chunk));
        }
        assertThat(enqueued).hasSize(jobs);

        HikariDataSource pool = closeAfter(db.pool(workers * 6 + 8));
        List<String> workerIds = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            String workerId = "worker-" + w;
            workerIds.add(workerId);
            Docket node = closeAfter(Docket.builder(pool).schema(schema).build());
            worker(node, b -> b.queue("default", concurrency).maxClaimBatch(maxClaimBatch).workerId(workerId)
                    .handler("work", JsonNode.class, (payload, ctx) -> {
                        Run run = new Run(ctx.jobId(), ctx.attempt(), workerId);
                        if (runs.putIfAbsent(ctx.jobId(), run) != null) {
                            duplicates.add(run);
                        }
                    }));
        }

        await().atMost(within).pollInterval(Duration.ofMillis(250))
                .until(() -> queryLong("SELECT count(*) FROM {s}.job_history") >= jobs);

        assertThat(duplicates).as("jobs that ran twice").isEmpty();
        assertThat(runs.keySet()).as("jobs that ran").isEqualTo(enqueued);
        assertThat(runs.values()).extracting(Run::attempt).containsOnly(1);
        assertThat(runs.values()).extracting(Run::workerId).isSubsetOf(workerIds);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history")).isEqualTo(jobs);
        assertThat(queryLong("SELECT count(DISTINCT id) FROM {s}.job_history WHERE state = 'completed' AND attempt = 1"))
                .isEqualTo(jobs);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs")).isZero();
        Map<String, Long> perWorker = runs.values().stream()
                .collect(Collectors.groupingBy(Run::workerId, Collectors.counting()));
        System.out.printf("%d jobs over %d workers (concurrency %d, batch %d): %s%n",
                jobs, workers, concurrency, maxClaimBatch, perWorker);
    }
}
