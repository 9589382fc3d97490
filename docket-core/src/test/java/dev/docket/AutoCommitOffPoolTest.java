package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.test.TestPostgres;
import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The core behaviours on a pool that hands out connections with auto-commit off (Spring Boot's
 * common HikariCP setting): every write Docket makes on its own connection must commit by itself,
 * or the pool rolls it back when the connection returns and the write silently never happened.
 */
class AutoCommitOffPoolTest extends DocketTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static HikariDataSource pool;

    record Task(String name) {
    }

    @BeforeAll
    static void openPool() {
        pool = TestPostgres.get().poolWithoutAutoCommit(20);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @Override
    protected DataSource dataSource() {
        return pool;
    }

    private Docket fastDocket() {
        return docket(b -> b.defaultRetryPolicy(new RetryPolicy(5, Duration.ofMillis(50), Duration.ofMillis(50), 0)));
    }

    private Worker.Builder worker(Docket docket) {
        return docket.worker().queue("default", 4)
                .pollInterval(Duration.ofMillis(100))
                .maintenanceInterval(Duration.ofMillis(100))
                .leaderLease(Duration.ofSeconds(3));
    }

    @Test
    void enqueuedJobsRunAndFailedAttemptsAreRetried() throws Exception {
        Docket docket = fastDocket();
        long single = docket.enqueue("task", new Task("single"));
        List<Long> many = docket.enqueueAll(List.of(NewJob.of("task", new Task("a")), NewJob.of("task", new Task("b"))));
        long inCallersTransaction;
        try (Connection tx = pool.getConnection()) {
            inCallersTransaction = docket.enqueue(tx, "task", new Task("tx"), JobOptions.defaults());
            tx.commit();
        }
        long flaky = docket.enqueue("flaky", new Task("flaky"));
        AtomicInteger flakyRuns = new AtomicInteger();
        closeAfter(worker(docket)
                .handler("task", Task.class, (t, ctx) -> { })
                .handler("flaky", Task.class, (t, ctx) -> {
                    if (flakyRuns.incrementAndGet() == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                })
                .start());

        for (long id : List.of(single, many.get(0), many.get(1), inCallersTransaction)) {
            awaitState(docket, id, JobState.COMPLETED, WAIT);
        }
        JobInfo retried = awaitState(docket, flaky, JobState.COMPLETED, WAIT);
        assertThat(retried.attempt()).isEqualTo(2);
        assertThat(retried.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("first attempt fails"));
    }

    @Test
    void aReplayedDeadJobRunsAgain() {
        Docket docket = fastDocket();
        long id = docket.enqueue("charge", new Task("card"));
        AtomicInteger runs = new AtomicInteger();
        closeAfter(worker(docket)
                .handler("charge", Task.class, (t, ctx) -> {
                    if (runs.incrementAndGet() == 1) {
                        throw new PermanentJobFailure("card declined");
                    }
                })
                .start());
        awaitState(docket, id, JobState.DEAD, WAIT);

        assertThat(docket.admin().replayDead(List.of(id))).containsExactly(id);
        awaitState(docket, id, JobState.COMPLETED, WAIT);
        assertThat(runs).hasValue(2);
    }

    @Test
    void aPeriodicJobIsEnqueued() {
        Docket docket = docket(b -> b.periodic(new PeriodicJob("every-second", "* * * * * *", ZoneId.of("UTC"),
                "tick", new Task("cron"), JobOptions.defaults())));
        AtomicInteger ticks = new AtomicInteger();
        closeAfter(worker(docket).handler("tick", Task.class, (t, ctx) -> ticks.incrementAndGet()).start());

        await().atMost(WAIT).until(() -> ticks.get() >= 2);
        assertThat(queryLong("SELECT count(*) FROM {s}.cron_slots")).isEqualTo(1);
    }

    @Test
    void aUniqueKeyHeldForAPeriodIsFreedWhenItExpiresAndThenDeleted() {
        Docket docket = docket();
        JobOptions once = JobOptions.builder().uniqueKey("digest:ada").uniqueFor(Duration.ofDays(1)).build();
        Worker first = worker(docket).handler("digest", Task.class, (t, ctx) -> { }).start();
        Enqueued ran = docket.enqueue(JobKind.named("digest"), new Task("1"), once);
        awaitState(docket, ran.id(), JobState.COMPLETED, WAIT);
        assertThat(docket.enqueue(JobKind.named("digest"), new Task("2"), once)).as("held after its job finished")
                .isEqualTo(new Enqueued(ran.id(), false));

        execute("UPDATE {s}.unique_keys SET expires_at = now() - interval '1 second'");
        Enqueued afterExpiry = docket.enqueue(JobKind.named("digest"), new Task("3"), once);
        assertThat(afterExpiry.inserted()).isTrue();
        awaitState(docket, afterExpiry.id(), JobState.COMPLETED, WAIT);
        first.close();

        execute("UPDATE {s}.unique_keys SET expires_at = now() - interval '1 second'");
        // The next leader's first maintenance round deletes expired keys.
        closeAfter(worker(docket).handler("digest", Task.class, (t, ctx) -> { }).start());
        await().atMost(WAIT).until(() -> queryLong("SELECT count(*) FROM {s}.unique_keys") == 0);
    }

    @Test
    void maintenancePromotesDueJobsAndRescuesExpiredLeases() throws Exception {
        Docket docket = docket();
        long due = docket.enqueue("task", new Task("due"), JobOptions.builder().delay(Duration.ofHours(1)).build());
        execute("UPDATE {s}.jobs SET run_at = now() - interval '1 second' WHERE state = 'scheduled'");
        long orphan = docket.enqueue("task", new Task("orphan"));
        List<ClaimedJob> ghost = docket.wiring().store().claims().claim("default", 1, Duration.ofMillis(1), Map.of(), "ghost");
        assertThat(ghost).extracting(ClaimedJob::id).containsExactly(orphan);
        Set<Long> ran = ConcurrentHashMap.newKeySet();
        closeAfter(worker(docket).handler("task", Task.class, (t, ctx) -> ran.add(ctx.jobId())).start());

        awaitState(docket, due, JobState.COMPLETED, WAIT);
        JobInfo rescued = awaitState(docket, orphan, JobState.COMPLETED, WAIT);
        assertThat(rescued.errors()).singleElement().satisfies(e -> assertThat(e.message()).contains("ghost lost its lease"));
        assertThat(ran).containsExactlyInAnyOrder(due, orphan);
    }
}
