package dev.docket.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code bin/bench} exits with: a failed measurement before a stalled drain, either before success. */
class BenchExitStatusTest {

    private static Bench.Row drain(String... stalls) {
        return drainOf("docket", stalls);
    }

    private static Bench.Row drainOf(String system, String... stalls) {
        List<Double> values = Arrays.stream(stalls).map(s -> 12.0).toList();
        return new Bench.Row("drain", system, "B=100 c=8", Drain.STALL_METRIC, "ms", values, List.of(stalls));
    }

    private static final Bench.Row FAILED = new Bench.Row("drain", "jobrunr", "poll 5000ms c=8",
            "error: IllegalStateException: 3 of 1000 jobs started", "", List.of(), List.of());

    @Test
    void aRunWithoutStallsOrFailuresExitsZero() {
        assertThat(Bench.exitStatus(List.of(drain("", "", "")))).isZero();
    }

    @Test
    void oneStalledRepetitionMakesTheExitStatusThree() {
        List<Bench.Row> rows = List.of(drain("", "stall: no start for 312 ms from 1,204 ms on (threshold 100 ms)", ""));

        assertThat(Bench.exitStatus(rows)).isEqualTo(Bench.EXIT_STALLED).isEqualTo(3);
    }

    @Test
    void aPeersStallIsReportedButIsNoFailureOfTheRun() {
        List<Bench.Row> rows = List.of(drainOf("raw", "stall: no start for 167 ms from 900 ms on (threshold 100 ms)"));

        assertThat(Bench.exitStatus(rows)).isZero();
        assertThat(new Report(rows, Map.of(), BenchOptions.parse(new String[]{"--reps", "1"})).markdown())
                .contains("⚠ stall");
    }

    @Test
    void aFailedMeasurementOutranksAStall() {
        assertThat(Bench.exitStatus(List.of(drain("stall: ..."), FAILED))).isEqualTo(Bench.EXIT_FAILED).isEqualTo(1);
    }

    @Test
    void theReportMarksTheStalledRepetitionAndListsItsStall() {
        BenchOptions options = BenchOptions.parse(new String[]{"--reps", "3"});
        String stall = "stall: no start for 312 ms from 1,204 ms on (threshold 100 ms)";

        String md = new Report(List.of(drain("", stall, "")), Map.of(), options).markdown();

        assertThat(md).contains("| 12.00 · 12.00 ⚠ stall · 12.00 |")
                .contains("- docket drain [B=100 c=8] rep 2: " + stall);
    }
}
