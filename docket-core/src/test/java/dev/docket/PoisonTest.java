package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.maintenance.Maintainer;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A poison job kills its worker before any outcome is written. Attempts are counted at claim, so
 * each lost attempt counts toward max attempts and the job reaches the dead-letter table.
 */
class PoisonTest extends DocketTest {

    record Task(String name) {
    }

    @Test
    void aJobWhoseWorkersAllDieReachesTheDeadLetterTableAfterMaxAttempts() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("poison", new Task("oom"), JobOptions.builder().maxAttempts(3).build());
        Database store = docket.wiring().store();
        Maintainer maintainer = new Maintainer(store, Duration.ofSeconds(1), Duration.ofDays(7), Duration.ofDays(30));

        for (int attempt = 1; attempt <= 3; attempt++) {
            List<ClaimedJob> claimed = store.claims().claim("default", 1, Duration.ofSeconds(1), Map.of(), "crashed-" + attempt);
            assertThat(claimed).as("claim %d", attempt).singleElement().satisfies(j -> assertThat(j.id()).isEqualTo(id));
            assertThat(claimed.getFirst().attempt()).as("counted at claim").isEqualTo(attempt);
            JobInfo running = docket.job(id).orElseThrow();
            assertThat(running.state()).isEqualTo(JobState.RUNNING);
            assertThat(running.attempt()).isEqualTo(attempt);

            // The worker "crashes": no heartbeat, no outcome. Nothing happens before the lease expires.
            assertThat(maintainer.rescueExpired()).as("rescue of a live lease").isZero();
            execute("UPDATE {s}.jobs SET lease_until = now() - interval '1 s' WHERE id = " + id);
            assertThat(maintainer.rescueExpired()).as("rescue after crash %d", attempt).isEqualTo(1);

            JobInfo after = docket.job(id).orElseThrow();
            assertThat(after.errors()).hasSize(attempt);
            if (attempt < 3) {
                assertThat(after.state()).isEqualTo(JobState.READY);
                assertThat(after.attempt()).isEqualTo(attempt);
                assertThat(after.lockedBy()).isNull();
            }
        }

        JobInfo dead = docket.job(id).orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.attempt()).isEqualTo(3);
        assertThat(dead.deadReason()).contains("attempts exhausted (3)").contains("lost its lease");
        assertThat(dead.errors()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            JobError e = dead.errors().get(i);
            assertThat(e.attempt()).isEqualTo(i + 1);
            assertThat(e.worker()).isEqualTo("crashed-" + (i + 1));
            assertThat(e.message()).isEqualTo("lease expired: worker crashed-" + (i + 1) + " lost its lease");
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs WHERE id = ?", id)).isEqualTo(1);
        assertThat(store.claims().claim("default", 1, Duration.ofSeconds(1), Map.of(), "crashed-4")).as("never claimed again").isEmpty();
        assertThat(maintainer.rescueExpired()).isZero();
    }
}
