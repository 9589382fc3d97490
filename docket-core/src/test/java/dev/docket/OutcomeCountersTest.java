package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.CountingConnection;
import dev.docket.testing.DocketTest;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The cluster's outcome counters ({@link DocketAdmin#outcomeTotals()}): each outcome counted once, in
 * the statement that writes it, whatever writes it (a worker's batch, a transactional handler, the
 * rescuer); never for a fenced-out write; unchanged by pruned history and dead letters and by the
 * leader's folds, which may race each other; and a one-kind batch still one auto-committed statement.
 */
class OutcomeCountersTest extends DocketTest {

    record Task(int n) {
    }

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final RetryPolicy FAST_RETRY = new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(1), 0);

    private Database store;

    @BeforeEach
    void store() {
        store = new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
    }

    private static Map<String, OutcomeTotals> byKind(Docket docket) {
        return docket.admin().outcomeTotals().stream().collect(Collectors.toMap(OutcomeTotals::kind, Function.identity()));
    }

    private long deltas() {
        return queryLong("SELECT count(*) FROM {s}.job_count_deltas");
    }

    @ParameterizedTest(name = "history kept: {0}")
    @ValueSource(booleans = {true, false})
    void everyOutcomeIsCountedOnceAndPruningOrFoldingChangesNothing(boolean keepHistory) throws SQLException {
        Docket docket = docket(b -> b.defaultRetryPolicy(FAST_RETRY)
                .historyRetention(keepHistory ? Duration.ofDays(7) : Duration.ZERO));
        for (int i = 0; i < 5; i++) {
            docket.enqueue("ok", new Task(i));
        }
        for (int i = 0; i < 2; i++) {
            docket.enqueue("flaky", new Task(i));
        }
        for (int i = 0; i < 3; i++) {
            docket.enqueue("doomed", new Task(i), JobOptions.builder().queue("side").build());
        }
        AtomicInteger flakyCalls = new AtomicInteger();
        worker(docket, w -> w.queue("default", 4).queue("side", 2).maintenanceInterval(Duration.ofMillis(20))
                .handler("ok", Task.class, (t, ctx) -> { })
                .handler("flaky", Task.class, (t, ctx) -> {
                    if (ctx.attempt() == 1) {
                        flakyCalls.incrementAndGet();
                        throw new IllegalStateException("first attempt fails");
                    }
                })
                .handler("doomed", Task.class, (t, ctx) -> {
                    throw new PermanentJobFailure("never works");
                }));

        Awaitility.await().atMost(WAIT).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        Map<String, OutcomeTotals> totals = byKind(docket);
        assertThat(totals).containsOnlyKeys("ok", "flaky", "doomed");
        assertThat(totals.get("ok")).isEqualTo(new OutcomeTotals("default", "ok", 5, 0, 0));
        assertThat(totals.get("flaky")).isEqualTo(new OutcomeTotals("default", "flaky", 2, 2, 0));
        assertThat(totals.get("doomed")).isEqualTo(new OutcomeTotals("side", "doomed", 0, 3, 3));
        assertThat(flakyCalls).hasValue(2);

        execute("DELETE FROM {s}.job_history");
        execute("DELETE FROM {s}.dead_jobs");
        store.jobCounts().fold(10_000);

        assertThat(deltas()).isZero();
        assertThat(byKind(docket)).isEqualTo(totals);
    }

    /** Lost leases are failed attempts, and the last one a dead job; counted by the statements of the rescue. */
    @Test
    void rescuedJobsCountAsFailedAttemptsAndDeaths() throws SQLException {
        Docket docket = docket();
        long lost = docket.enqueue("lost", new Task(1));
        long poison = docket.enqueue("poison", new Task(2), JobOptions.builder().maxAttempts(1).build());
        execute("UPDATE {s}.jobs SET state = 'running', attempt = 1, attempted_at = now(), locked_by = 'gone', "
                + "lease_until = now() - interval '1 second' WHERE id IN (" + lost + ", " + poison + ")");

        assertThat(store.jobs().rescueExpired(0, 100).jobs()).hasSize(2);

        assertThat(byKind(docket)).containsOnlyKeys("lost", "poison");
        assertThat(byKind(docket).get("lost")).isEqualTo(new OutcomeTotals("default", "lost", 0, 1, 0));
        assertThat(byKind(docket).get("poison")).isEqualTo(new OutcomeTotals("default", "poison", 0, 1, 1));
        assertThat(store.jobs().rescueExpired(0, 100).jobs()).as("nothing left to rescue").isEmpty();
        assertThat(byKind(docket).get("lost").failedAttempts()).isEqualTo(1);
    }

    /** A write whose fence no longer matches changed no job, so it counts nothing. */
    @Test
    void aFencedOutOutcomeCountsNothing() throws SQLException {
        Docket docket = docket();
        long id = docket.enqueue("k", new Task(1));
        Fence fence = store.claims().claim("default", 1, LEASE, Map.of(), "worker-a").getFirst().fence();
        Fence stale = new Fence(id, fence.attempt() - 1);

        for (Outcome o : List.of(new Outcome.Completed(stale, null), new Outcome.Retry(stale, 0, "x"),
                new Outcome.Dead(stale, null, "x", "y"))) {
            assertThat(store.outcomes().writeOutcomes("worker-a", List.of(o), true)).isEmpty();
        }
        assertThat(store.outcomes().writeOutcomes("worker-b", List.of(new Outcome.Completed(fence, null)), true)).isEmpty();
        assertThat(docket.admin().outcomeTotals()).isEmpty();

        assertThat(store.outcomes().writeOutcomes("worker-a", List.of(new Outcome.Completed(fence, null)), true))
                .containsExactly(fence);
        assertThat(docket.admin().outcomeTotals()).containsExactly(new OutcomeTotals("default", "k", 1, 0, 0));
    }

    /** The counting rides in the outcome statements: a batch of one outcome kind is still one auto-committed statement. */
    @ParameterizedTest(name = "history kept: {0}")
    @ValueSource(booleans = {true, false})
    void aBatchOfOneOutcomeKindIsStillOneAutoCommittedStatement(boolean keepHistory) throws SQLException {
        Docket docket = docket();
        for (int i = 0; i < 50; i++) {
            docket.enqueue(i % 2 == 0 ? "even" : "odd", new Task(i));
        }
        List<ClaimedJob> claimed = store.claims().claim("default", 50, LEASE, Map.of(), "worker-a");
        List<CountingConnection> counted = new ArrayList<>();
        Database counting = new Database(countingDataSource(counted), new SchemaName(schema),
                PayloadCodec.defaultMapper());

        assertThat(counting.outcomes().writeOutcomes("worker-a", claimed.stream()
                .map(j -> (Outcome) new Outcome.Completed(j.fence(), null)).toList(), keepHistory)).hasSize(50);

        assertThat(counted).singleElement().extracting(CountingConnection::statements).isEqualTo(1);
        assertThat(byKind(docket).get("even").completed()).isEqualTo(25);
        assertThat(byKind(docket).get("odd").completed()).isEqualTo(25);
        assertThat(deltas()).as("one appended row per queue and kind").isEqualTo(2);
    }

    /** Connections that count their statements and refuse commit(): an auto-committed statement needs none. */
    private DataSource countingDataSource(List<CountingConnection> counted) {
        DataSource target = dataSource();
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getConnection" -> {
                        Connection real = target.getConnection();
                        Connection noCommit = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                                new Class<?>[] {Connection.class}, (p, m, a) -> {
                                    if (m.getName().equals("commit")) {
                                        throw new AssertionError("a one-statement batch committed explicitly");
                                    }
                                    try {
                                        return m.invoke(real, a);
                                    } catch (InvocationTargetException e) {
                                        throw e.getCause();
                                    }
                                });
                        CountingConnection c = new CountingConnection(noCommit);
                        counted.add(c);
                        yield c.connection();
                    }
                    case "getLogWriter" -> new PrintWriter(System.err);
                    default -> method.invoke(target, args);
                });
    }

    @Test
    void aTransactionalHandlersCompletionCountsOnceAndItsRollbackNothing() {
        Docket docket = docket(b -> b.defaultRetryPolicy(FAST_RETRY));
        docket.enqueue("tx", new Task(1));
        docket.enqueue("tx_fails", new Task(2));
        List<JobRun> runs = docket.worker().queue("default", 1)
                .transactionalHandler("tx", Task.class, (t, ctx, c) -> { })
                .transactionalHandler("tx_fails", Task.class, (t, ctx, c) -> {
                    throw new IllegalStateException("boom");
                })
                .runReadyJobs();

        assertThat(runs).extracting(JobRun::result)
                .containsExactlyInAnyOrder(JobRun.Result.COMPLETED, JobRun.Result.RETRYING);
        assertThat(byKind(docket).get("tx")).isEqualTo(new OutcomeTotals("default", "tx", 1, 0, 0));
        assertThat(byKind(docket).get("tx_fails")).isEqualTo(new OutcomeTotals("default", "tx_fails", 0, 1, 0));
    }

    /**
     * While workers complete jobs and the leader folds every 10 ms, every read of the totals is at least
     * the one before, and the end count is the number of jobs.
     */
    @Test
    void theTotalsNeverGoDownWhileTheLeaderFolds() throws Exception {
        int jobs = 2_000;
        Docket docket = docket(b -> b.historyRetention(Duration.ZERO));
        docket.enqueueAll(IntStream.range(0, jobs).mapToObj(i -> NewJob.of("n", new Task(i))).toList());
        AtomicBoolean reading = new AtomicBoolean(true);
        List<Long> seen = new ArrayList<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (reading.get()) {
                seen.add(docket.admin().outcomeTotals().stream().mapToLong(OutcomeTotals::completed).sum());
            }
        });
        worker(docket, w -> w.queue("default", 8).maintenanceInterval(Duration.ofMillis(10))
                .handler("n", Task.class, (t, ctx) -> { }));

        Awaitility.await().atMost(WAIT).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        Awaitility.await().atMost(WAIT).until(() -> deltas() == 0);
        reading.set(false);
        reader.join();

        assertThat(seen).isSorted().isNotEmpty();
        assertThat(seen.getLast()).isEqualTo(jobs);
        assertThat(docket.admin().outcomeTotals()).containsExactly(new OutcomeTotals("default", "n", jobs, 0, 0));
        assertThat(queryLong("SELECT count(*) FROM {s}.job_counts")).isEqualTo(1);
    }

    /** Two nodes folding at once (a leader change) with writers appending meanwhile: each delta lands once. */
    @Test
    void concurrentFoldsCountEachDeltaOnce() throws Exception {
        docket();
        int writers = 4;
        int perWriter = 500;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        try {
            CountDownLatch start = new CountDownLatch(1);
            AtomicBoolean writing = new AtomicBoolean(true);
            ConcurrentLinkedQueue<Integer> folded = new ConcurrentLinkedQueue<>();
            List<Future<?>> appends = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                appends.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perWriter; i++) {
                        execute("INSERT INTO {s}.job_count_deltas (queue, kind, completed, failed, dead) "
                                + "VALUES ('q" + (i % 3) + "', 'k', 1, 2, 3)");
                    }
                    return null;
                }));
            }
            List<Future<?>> folds = new ArrayList<>();
            for (int f = 0; f < 2; f++) {
                folds.add(pool.submit(() -> {
                    start.await();
                    while (writing.get()) {
                        folded.add(store.jobCounts().fold(7));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> a : appends) {
                a.get();
            }
            writing.set(false);
            for (Future<?> f : folds) {
                f.get();
            }
            folded.add(store.jobCounts().fold(10_000));

            int total = writers * perWriter;
            assertThat(folded.stream().mapToInt(Integer::intValue).sum()).isEqualTo(total);
            assertThat(deltas()).isZero();
            assertThat(queryLong("SELECT sum(completed) FROM {s}.job_counts")).isEqualTo(total);
            assertThat(queryLong("SELECT sum(failed) FROM {s}.job_counts")).isEqualTo(2L * total);
            assertThat(queryLong("SELECT sum(dead) FROM {s}.job_counts")).isEqualTo(3L * total);
            assertThat(queryLong("SELECT count(*) FROM {s}.job_counts")).isEqualTo(3);
        } finally {
            pool.shutdownNow();
        }
    }
}
