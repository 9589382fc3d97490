package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdminTest extends DocketTest {

    record Item(int n) {
    }

    private Docket runAll(int ok, int doomed) {
        Docket docket = docket();
        for (int i = 0; i < ok; i++) {
            docket.enqueue("ok", new Item(i));
        }
        for (int i = 0; i < doomed; i++) {
            docket.enqueue("doomed", new Item(i), JobOptions.builder().queue("other").build());
        }
        worker(docket, w -> w.queue("default", 4).queue("other", 2)
                .handler("ok", Item.class, (item, ctx) -> { })
                .handler("doomed", Item.class, (item, ctx) -> {
                    throw new PermanentJobFailure("card declined for item " + item.n());
                }));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        return docket;
    }

    /** Listing pages by id across live, history and dead tables, newest first, filtered by state, queue and kind. */
    @Test
    void listsJobsAcrossTablesWithKeysetPages() {
        Docket docket = runAll(5, 3);
        long waiting = docket.enqueue("later", new Item(1), JobOptions.builder().delay(Duration.ofHours(1)).build());
        DocketAdmin admin = docket.admin();

        List<JobSummary> all = admin.jobs(JobQuery.all());
        assertThat(all).hasSize(9);
        assertThat(all).extracting(JobSummary::id).isSortedAccordingTo((a, b) -> Long.compare(b, a));
        assertThat(all.getFirst().id()).isEqualTo(waiting);
        assertThat(all.getFirst().state()).isEqualTo(JobState.SCHEDULED);

        List<JobSummary> page1 = admin.jobs(JobQuery.all().withLimit(4));
        List<JobSummary> page2 = admin.jobs(JobQuery.all().withLimit(4).withBefore(page1.getLast().id()));
        List<JobSummary> page3 = admin.jobs(JobQuery.all().withLimit(4).withBefore(page2.getLast().id()));
        assertThat(page1.size() + page2.size() + page3.size()).isEqualTo(9);
        assertThat(page3).hasSize(1);

        assertThat(admin.jobs(JobQuery.all().withState(JobState.DEAD))).hasSize(3)
                .allSatisfy(j -> assertThat(j.deadReason()).contains("permanent failure"));
        assertThat(admin.jobs(JobQuery.all().withState(JobState.COMPLETED))).hasSize(5)
                .allSatisfy(j -> assertThat(j.kind()).isEqualTo("ok"));
        assertThat(admin.jobs(JobQuery.all().withQueue("other"))).hasSize(3);
        assertThat(admin.jobs(JobQuery.all().withKind("later"))).extracting(JobSummary::id).containsExactly(waiting);
    }

    /** Dead jobs are found by kind and error text, and replay puts them back to ready with a fresh budget. */
    @Test
    void filtersAndReplaysDeadJobs() {
        Docket docket = runAll(0, 3);
        DocketAdmin admin = docket.admin();
        assertThat(admin.deadJobs(DeadJobQuery.all().withErrorContains("CARD DECLINED"))).hasSize(3);
        assertThat(admin.deadJobs(DeadJobQuery.all().withErrorContains("no such text"))).isEmpty();
        assertThat(admin.deadJobs(DeadJobQuery.all().withKind("ok"))).isEmpty();

        docket.close();
        long id = admin.deadJobs(DeadJobQuery.all()).getFirst().id();
        assertThat(admin.replayDead(List.of(id, 999_999L))).containsExactly(id);
        JobInfo replayed = docket.job(id).orElseThrow();
        assertThat(replayed.state()).isEqualTo(JobState.READY);
        assertThat(replayed.attempt()).isZero();
        assertThat(replayed.errors()).hasSize(1);
        assertThat(admin.replayDead(List.of(id))).isEmpty();
    }

    /** Dead jobs are grouped by kind and error signature: one broken handler is one group, whatever its item. */
    @Test
    void groupsDeadJobsByError() {
        Docket docket = runAll(0, 3);
        docket.enqueue("other-doomed", new Item(1), JobOptions.builder().queue("third").build());
        worker(docket, w -> w.queue("third", 1)
                .handler("other-doomed", Item.class, (item, ctx) -> {
                    throw new PermanentJobFailure("quota exceeded");
                }));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> queryLong("SELECT count(*) FROM {s}.dead_jobs") == 4);
        List<DeadJobGroup> groups = docket.admin().deadJobGroups(null, 10);
        assertThat(groups).as("three card declines (one per item) and one quota error").hasSize(2);
        assertThat(groups.getFirst()).satisfies(g -> {
            assertThat(g.kind()).isEqualTo("doomed");
            assertThat(g.count()).isEqualTo(3);
            assertThat(g.signature()).isEqualTo("PermanentJobFailure: card declined for item <n>");
            assertThat(g.error()).doesNotContain("\n").startsWith("dev.docket.PermanentJobFailure: card declined for item ");
        });
        assertThat(docket.admin().deadJobGroups("other-doomed", 10)).singleElement().satisfies(g -> {
            assertThat(g.count()).isEqualTo(1);
            assertThat(g.signature()).isEqualTo("PermanentJobFailure: quota exceeded");
            assertThat(g.lastDiedAt()).isNotNull();
        });
    }

    /** A scheduled job is made ready by retry(); a completed one is not touched. */
    @Test
    void retryRunsScheduledJobsNow() {
        Docket docket = docket();
        long id = docket.enqueue("later", new Item(1), JobOptions.builder().delay(Duration.ofHours(1)).build());
        assertThat(docket.admin().retry(id)).isTrue();
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(docket.admin().retry(id)).isFalse();
        assertThat(docket.admin().retry(123_456L)).isFalse();
    }

    /** Statistics report live counts and lag per queue and kind, throughput, dead-letter size and pickup latency. */
    @Test
    void statsCoverTheWholeQueue() {
        Docket docket = runAll(20, 2);
        docket.enqueue("waiting", new Item(1), JobOptions.builder().queue("unserved").build());
        List<QueueStats> stats = docket.admin().stats();
        QueueStats ok = stats.stream().filter(s -> s.kind().equals("ok")).findFirst().orElseThrow();
        assertThat(ok.completedLastMinute()).isEqualTo(20);
        assertThat(ok.pickupP50Millis()).isNotNull().isGreaterThanOrEqualTo(0);
        assertThat(ok.pickupP99Millis()).isGreaterThanOrEqualTo(ok.pickupP50Millis());
        QueueStats doomed = stats.stream().filter(s -> s.kind().equals("doomed")).findFirst().orElseThrow();
        assertThat(doomed.dead()).isEqualTo(2);
        assertThat(doomed.deadLast24h()).isEqualTo(2);
        assertThat(doomed.failedLastMinute()).isEqualTo(2);
        QueueStats waiting = stats.stream().filter(s -> s.kind().equals("waiting")).findFirst().orElseThrow();
        assertThat(waiting.ready()).isEqualTo(1);
        assertThat(waiting.oldestReadyAgeSeconds()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void rejectsBadQueries() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobQuery.all().withLimit(0)).withMessageContaining("limit");
        assertThatIllegalArgumentException().isThrownBy(() -> JobQuery.all().withQueue("a b")).withMessageContaining("queue");
        assertThatIllegalArgumentException().isThrownBy(() -> DeadJobQuery.all().withErrorContains(""));
    }
}
