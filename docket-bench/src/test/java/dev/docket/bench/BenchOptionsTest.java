package dev.docket.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The command line of {@code bin/bench}: defaults, the peers and scale-out flags, and refused values. */
class BenchOptionsTest {

    @Test
    void defaultsMeasureEverySystemAndScaleOutAtOneTwoAndFourProcesses() {
        BenchOptions o = BenchOptions.parse(new String[0]);

        assertThat(o.systems()).containsExactly("docket", "raw", "db-scheduler", "jobrunr", "graphile-worker", "pg-boss");
        assertThat(o.scenarios()).contains("scaleout").doesNotContain("soak", "fairness");
        assertThat(o.processes()).containsExactly(1, 2, 4);
    }

    @Test
    void listsAreParsed() {
        BenchOptions o = BenchOptions.parse(new String[]{"--systems", "graphile-worker,pg-boss", "--processes", "1, 3",
                "--concurrency", "8,32,64"});

        assertThat(o.systems()).containsExactly("graphile-worker", "pg-boss");
        assertThat(o.processes()).isEqualTo(List.of(1, 3));
        assertThat(o.concurrencies()).isEqualTo(List.of(8, 32, 64));
    }

    @Test
    void malformedOversizedAndHostileListsAreRefusedWithTheOptionNamed() {
        for (String bad : List.of("0", "-1", "2000", "x", "1,,2", "", "1;rm -rf /", "99999999999")) {
            assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--processes", bad}))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--processes");
            assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--concurrency", bad}))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--concurrency");
        }
    }

    @Test
    void twoWarmUpsByDefaultNoneInShortModeAndBadCountsRefused() {
        assertThat(BenchOptions.parse(new String[0]).warmups()).isEqualTo(2);
        assertThat(BenchOptions.parse(new String[]{"--short"}).warmups()).isZero();
        assertThat(BenchOptions.parse(new String[]{"--short", "--warmup", "1"}).warmups()).isEqualTo(1);
        for (String bad : List.of("-1", "101", "x", "", "1,2", "1;rm -rf /", "99999999999")) {
            assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--warmup", bad}))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--warmup");
        }
    }

    @Test
    void badCountsAndDurationsAndMissingValuesAreRefusedWithTheOptionNamed() {
        assertThat(BenchOptions.parse(new String[]{"--jobs", "50_000", "--reps", "5"}))
                .satisfies(o -> assertThat(o.jobs()).isEqualTo(50_000)).satisfies(o -> assertThat(o.reps()).isEqualTo(5));
        for (String option : List.of("--jobs", "--reps")) {
            for (String bad : List.of("0", "-1", "x", "", "1e9", "1;rm -rf /", "99999999999")) {
                assertThatThrownBy(() -> BenchOptions.parse(new String[]{option, bad}))
                        .as(option + " " + bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(option);
            }
        }
        for (String bad : List.of("0s", "-5m", "soon", "", "5m;reboot")) {
            assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--soak-duration", bad}))
                    .as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--soak-duration");
        }
        assertThat(BenchOptions.parse(new String[]{"--soak-duration", "90s"}).soakDuration()).hasSeconds(90);
        for (String option : List.of("--systems", "--jobs", "--reps", "--warmup", "--out", "--soak-duration")) {
            assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--short", option}))
                    .as(option).isInstanceOf(IllegalArgumentException.class).hasMessage(option + " needs a value");
        }
    }

    @Test
    void theHelpNamesEveryExitStatus() {
        assertThat(BenchOptions.HELP).contains("0 when every measurement succeeded", "1 when a measurement",
                "2 for a bad command line", "3 when a drain of Docket");
        assertThat(List.of(Bench.EXIT_FAILED, Bench.EXIT_BAD_OPTIONS, Bench.EXIT_STALLED)).containsExactly(1, 2, 3);
    }

    @Test
    void unknownSystemsAreRefused() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[]{"--systems", "docket,sidekiq"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown system sidekiq");
    }

    @Test
    void aJdbcUrlBecomesTheNodeDriversConnectionFields() {
        assertThat(NodeSut.connection("jdbc:postgresql://127.0.0.1:5433/bench_pg_boss_3?user=postgres&password=s%26cret"))
                .containsEntry("host", "127.0.0.1").containsEntry("port", 5433).containsEntry("database", "bench_pg_boss_3")
                .containsEntry("user", "postgres").containsEntry("password", "s&cret");
        assertThat(NodeSut.connection("jdbc:postgresql://db.internal/queue")).containsEntry("port", 5432)
                .doesNotContainKey("user");
    }
}
