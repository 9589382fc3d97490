package dev.docket.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.JobExplanation;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.NewJob;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sequences through a kill storm: 50 keys of 200 jobs on 3 worker JVMs (11 slots each), one of them
 * SIGKILLed every 2 seconds for the first 20 seconds (each replaced), plus two poison jobs that halt
 * the JVM that runs them at each of their 3 attempts. Per key, executions never overlap and
 * completions come in enqueue order; the key whose poison job continues runs all its other jobs; the
 * key whose poison job halts it keeps its later jobs waiting until the dead job is discarded, then
 * runs them in order.
 */
@Tag("load")
class SequenceKillStormTest {

    private static final String S = ChaosHarness.SCHEMA;

    @Test
    @Timeout(170)
    void perKeyExecutionsNeverOverlapAndCompleteInOrderThroughAKillStorm(@TempDir Path runDir) throws Exception {
        ChaosOptions o = ChaosOptions.parse(new String[] {"--workers", "3", "--concurrency", "11", "--lease", "2",
                "--no-zombie", "--no-disruption"});
        try (SingleServer database = new SingleServer(runDir.resolve("pgdata"), Map.of());
             HikariDataSource harness = pool(database.harnessUrl());
             Docket docket = Docket.builder(harness).schema(S).build()) {
            docket.migrate();
            ChaosHarness.createTables(harness);
            WorkerFleet fleet = new WorkerFleet(o, database, harness, runDir);
            try {
                for (int i = 0; i < o.workers(); i++) {
                    fleet.start();
                }
                List<NewJob> jobs = new ArrayList<>(SequenceChaos.jobs("key-", 50, 200, 2));
                jobs.addAll(poisonKey("poison-continue", false));
                jobs.addAll(poisonKey("poison-halt", true));
                for (int from = 0; from < jobs.size(); from += 1000) {
                    docket.enqueueAll(jobs.subList(from, Math.min(jobs.size(), from + 1000)));
                }

                long started = System.nanoTime();
                long[] nextKill = {started + TimeUnit.SECONDS.toNanos(2)};
                // Drained: all that can run ran; the halted key's three later jobs wait. Each poll also
                // replaces crashed workers and, for the first 20 s, kills one every 2 s.
                await("drained").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    fleet.replaceCrashed();
                    if (System.nanoTime() >= nextKill[0] && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(20)) {
                        fleet.killOne();
                        nextKill[0] += TimeUnit.SECONDS.toNanos(2);
                    }
                    return Sql.count(harness, "SELECT count(*) FROM " + S + ".jobs WHERE kind <> 'tick'") <= 3
                            && Sql.count(harness, "SELECT count(*) FROM " + S + ".jobs WHERE state = 'waiting'") >= 3;
                });
                assertThat(fleet.losses()).as("kills").hasSizeGreaterThanOrEqualTo(8);

                SequenceChaos.Result result = SequenceChaos.check(harness, fleet::disturbance);
                System.out.printf("SequenceKillStormTest: %d kills, %d keyed executions, %d overlaps after a killed worker, "
                        + "drained in %d s%n", fleet.losses().size(), result.executions(), result.explained(),
                        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
                assertThat(result.overlaps()).as("overlapping executions on undisturbed workers").isZero();
                assertThat(result.outOfOrder()).as("completions out of enqueue order").isZero();
                assertThat(result.completed()).isEqualTo(50 * 200 + 5 + 2);
                assertThat(Sql.count(harness, "SELECT count(*) FROM " + S + ".dead_jobs")).as("the two poison jobs").isEqualTo(2);

                long halting = Sql.count(harness, "SELECT id FROM " + S + ".dead_jobs WHERE sequence_key = 'poison-halt'");
                long waiting = Sql.count(harness, "SELECT min(id) FROM " + S + ".jobs WHERE state = 'waiting'");
                JobExplanation why = docket.admin().explain(waiting).orElseThrow();
                assertThat(why.state()).isEqualTo(JobState.WAITING);
                assertThat(why.reasons().getFirst().code()).isEqualTo(JobExplanation.Code.SEQUENCE_HALTED);
                assertThat(why.reasons().getFirst().facts()).containsEntry("deadJobId", Long.toString(halting));

                assertThat(docket.admin().discardDead(halting)).isTrue();
                await("the halted key resumed").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> {
                            fleet.replaceCrashed();
                            return Sql.count(harness, "SELECT count(*) FROM " + S + ".jobs WHERE kind <> 'tick'") == 0;
                        });
                SequenceChaos.Result after = SequenceChaos.check(harness, fleet::disturbance);
                assertThat(after.completed()).isEqualTo(50 * 200 + 5 + 5);
                assertThat(after.outOfOrder()).isZero();
                assertThat(after.overlaps()).isZero();
            } finally {
                fleet.destroy();
            }
        }
    }

    /** Six jobs of one key, the third of them poison (3 attempts, each halting its JVM). */
    private static List<NewJob> poisonKey(String key, boolean halt) {
        List<NewJob> jobs = new ArrayList<>();
        for (int n = 0; n < 6; n++) {
            jobs.add(n == 2
                    ? NewJob.of("poison", ChaosWorker.Work.of(n, 0, false), JobOptions.builder().sequenceKey(key)
                            .maxAttempts(3).haltSequenceOnDeath(halt).build())
                    : NewJob.of(SequenceChaos.KIND, new SequenceChaos.Step(key, n, 2),
                            JobOptions.builder().sequenceKey(key).build()));
        }
        return jobs;
    }

    private static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setMaximumPoolSize(6);
        return new HikariDataSource(config);
    }
}
