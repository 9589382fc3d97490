package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Dead-letter replays at a rate: started by DocketAdmin, carried out by the maintenance leader, kept in the database. */
class DeadJobReplayTest extends DocketTest {

    record Item(int n) {
    }

    /** Sends {@code count} jobs of {@code kind} to the dead-letter table and stops the worker that did it. */
    private void killJobs(Docket docket, String kind, int count) {
        for (int i = 0; i < count; i++) {
            docket.enqueue(kind, new Item(i));
        }
        try (Worker w = docket.worker().queue("default", 4).maintenance(false)
                .handler(kind, Item.class, (item, ctx) -> {
                    throw new PermanentJobFailure("boom");
                })
                .start()) {
            Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE kind = ?", kind) == count);
        }
    }

    private DeadJobReplay awaitDone(Docket docket, long id) {
        return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> docket.admin().deadJobReplay(id).orElseThrow(), r -> r.state() == DeadJobReplay.State.DONE);
    }

    /**
     * A replay started on one node, which then goes away, is carried out by the leader of another
     * at its rate; a third Docket reads the same progress from the database.
     */
    @Test
    void aReplayFinishesAtItsRateWhoeverStartedIt() {
        Docket starter = docket();
        killJobs(starter, "bulk", 5);
        killJobs(starter, "other", 1);
        DeadJobReplay started = starter.admin().startDeadJobReplay(DeadJobQuery.all().withKind("bulk"), 2.0, 100);
        assertThat(started.state()).isEqualTo(DeadJobReplay.State.RUNNING);
        assertThat(started.matched()).isEqualTo(5);
        assertThat(started.replayed()).isZero();
        starter.close();

        Docket leader = docket();
        worker(leader, w -> w.maintenanceInterval(Duration.ofMillis(100)));
        DeadJobReplay done = awaitDone(leader, started.id());
        assertThat(done.replayed()).isEqualTo(5);
        assertThat(done.scanned()).isEqualTo(5);
        assertThat(done.finishedAt()).isNotNull();
        // 5 jobs at 2 per second, earned from nothing by the database clock: at least 2.5 s.
        assertThat(Duration.between(done.createdAt(), done.finishedAt())).isGreaterThanOrEqualTo(Duration.ofMillis(2500));
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'bulk' AND state = 'ready'")).isEqualTo(5);
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs")).as("the other kind stays dead").isEqualTo(1);

        Docket reader = docket();
        assertThat(reader.admin().deadJobReplay(started.id())).contains(done);
        assertThat(reader.admin().deadJobReplays()).containsExactly(done);
    }

    /** The most a replay takes is its max, newest dead jobs first. */
    @Test
    void aReplayStopsAtItsMax() {
        Docket docket = docket();
        killJobs(docket, "bulk", 4);
        DeadJobReplay started = docket.admin().startDeadJobReplay(DeadJobQuery.all(), 1000, 3);
        assertThat(started.matched()).isEqualTo(3);
        worker(docket, w -> w.maintenanceInterval(Duration.ofMillis(100)));
        DeadJobReplay done = awaitDone(docket, started.id());
        assertThat(done.replayed()).isEqualTo(3);
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs")).isEqualTo(1);
        assertThat(queryLong("SELECT max(id) FROM {s}.jobs")).isGreaterThan(queryLong("SELECT id FROM {s}.dead_jobs"));
    }

    /** A replay that matches nothing is done at once; bad rates and sizes are refused. */
    @Test
    void anEmptyReplayIsDoneAndBadArgumentsAreRefused() {
        Docket docket = docket();
        DeadJobReplay nothing = docket.admin().startDeadJobReplay(DeadJobQuery.all().withKind("none"), 10, 10);
        assertThat(nothing.state()).isEqualTo(DeadJobReplay.State.DONE);
        assertThat(nothing.matched()).isZero();
        assertThat(docket.admin().deadJobReplay(nothing.id() + 1)).isEmpty();
        assertThatIllegalArgumentException().isThrownBy(() -> docket.admin().startDeadJobReplay(DeadJobQuery.all(), 0, 10))
                .withMessageContaining("ratePerSecond must be more than 0");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.admin().startDeadJobReplay(DeadJobQuery.all(), Double.NaN, 10))
                .withMessageContaining("ratePerSecond");
        assertThatIllegalArgumentException().isThrownBy(() -> docket.admin().startDeadJobReplay(DeadJobQuery.all(), 1, 0))
                .withMessageContaining("max must be between 1 and 1000000");
    }

    /** Finished replays are deleted a week after they finish; newer ones stay. */
    @Test
    void finishedReplaysArePrunedAfterAWeek() {
        Docket docket = docket();
        DeadJobReplay old = docket.admin().startDeadJobReplay(DeadJobQuery.all().withKind("a"), 10, 10);
        DeadJobReplay recent = docket.admin().startDeadJobReplay(DeadJobQuery.all().withKind("b"), 10, 10);
        execute("UPDATE {s}.dead_job_replays SET finished_at = now() - interval '8 days' WHERE id = " + old.id());
        execute("UPDATE {s}.dead_job_replays SET finished_at = now() - interval '6 days' WHERE id = " + recent.id());

        worker(docket, w -> w.maintenanceInterval(Duration.ofMillis(100)));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> docket.admin().deadJobReplay(old.id()).isEmpty());
        assertThat(docket.admin().deadJobReplay(recent.id())).isPresent();
    }
}
