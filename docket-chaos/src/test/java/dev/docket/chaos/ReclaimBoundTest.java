package dev.docket.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The re-claim check: a re-claim is held to the plain bound unless the maintenance leader changed
 * hands (read from the workers' logs) or the database was down in between, and the report fails on
 * the one re-claim that exceeds its own bound.
 */
class ReclaimBoundTest {

    private static final Instant T = Instant.parse("2026-11-26T10:30:00Z");

    @Test
    void leaderChangesAreReadFromTheWorkerLogsAndTheFirstElectionIsNotAChange(@TempDir Path runDir) throws Exception {
        Files.writeString(runDir.resolve("w1.log"), """
                ready w1
                2026-11-26T10:30:00.000Z [docket-leader-maintainer] INFO dev.docket.internal.leader.LeaderElector - docket: w1 is now the maintainer leader (term 1)
                2026-11-26T10:30:09.000Z [docket-producer-default] WARN dev.docket.internal.producer.Producer - docket: is now the maintainer leader (term 9) quoted in a failure
                """);
        Files.writeString(runDir.resolve("w2.log"), """
                2026-11-26T10:30:04.000Z [docket-leader-maintainer] INFO dev.docket.internal.leader.LeaderElector - docket: w2 is now the maintainer leader (term 2)
                2026-11-26T10:30:07.000Z [docket-leader-maintainer] INFO dev.docket.internal.leader.LeaderElector - docket: w2 is now the maintainer leader (term 3)
                """);
        Files.writeString(runDir.resolve("harness.txt"), "2026-11-26T10:30:05.000Z [x] INFO y - docket: w9 is now the maintainer leader (term 4)\n");
        LeaderLog leaders = LeaderLog.read(runDir);

        assertThat(leaders.changesBetween(T.minusSeconds(1), T.plusSeconds(3))).as("the first election").isZero();
        assertThat(leaders.changesBetween(T.plusSeconds(1), T.plusSeconds(5))).isEqualTo(1);
        assertThat(leaders.changesBetween(T.plusSeconds(1), T.plusSeconds(10))).isEqualTo(2);
        assertThat(leaders.changesBetween(T.plusSeconds(4), T.plusSeconds(6))).as("after from, not at it").isZero();
    }

    @Test
    void anOutageCountsOnlyWhenItOverlaps() {
        Outage outage = new Outage("restart", T.plusSeconds(10), T.plusSeconds(12));
        assertThat(outage.length()).isEqualTo(Duration.ofSeconds(2));
        assertThat(outage.overlaps(T, T.plusSeconds(11))).isTrue();
        assertThat(outage.overlaps(T.plusSeconds(11), T.plusSeconds(20))).isTrue();
        assertThat(outage.overlaps(T, T.plusSeconds(10))).isFalse();
        assertThat(outage.overlaps(T.plusSeconds(12), T.plusSeconds(20))).isFalse();
    }

    @Test
    void theReportFailsOnTheReclaimOverItsOwnBoundEvenWhenAnotherWasSlower() {
        ChaosReport r = new ChaosReport(0);
        r.bound = Duration.ofMillis(7_200);
        r.reclaimed(9_000, 10_533);
        r.reclaimed(5_000, 7_200);
        assertThat(r.ok()).as("9,000 ms after a leader change is within its 10,533 ms").isTrue();
        r.reclaimed(7_211, 7_200);
        assertThat(r.ok()).isFalse();
        assertThat(r.reclaimsWaiting).isEqualTo(1);
    }
}
