package dev.docket.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The stall rule of a drain: gaps between sorted starts, their median, and the threshold with its floor. */
class StartGapsTest {

    private static final long MS = 1_000_000;

    @Test
    void gapsAreTakenBetweenSortedStartsWhateverOrderTheThreadsRecordedThem() {
        List<Long> starts = new ArrayList<>();
        for (long i = 0; i < 1000; i++) {
            starts.add(i * MS);
        }
        starts.replaceAll(t -> t >= 500 * MS ? t + 40 * MS : t);
        Collections.shuffle(starts, new Random(7));

        StartGaps gaps = StartGaps.of(starts.stream().mapToLong(Long::longValue).toArray());

        assertThat(gaps.starts()).isEqualTo(1000);
        assertThat(gaps.longestNanos()).isEqualTo(41 * MS);
        assertThat(gaps.atNanos()).isEqualTo(499 * MS);
        assertThat(gaps.medianNanos()).isEqualTo(MS);
    }

    @Test
    void aGapUnderTheHundredMillisecondFloorIsNoStallEvenAtManyMedians() {
        StartGaps gaps = StartGaps.of(new long[]{0, 0, 0, 0, 90 * MS, 90 * MS, 90 * MS});

        assertThat(gaps.medianNanos()).isZero();
        assertThat(gaps.threshold()).isEqualTo(100 * MS);
        assertThat(gaps.stalled()).isFalse();
    }

    @Test
    void aGapOverTheFloorAndOverFiveMediansIsAStall() {
        StartGaps gaps = StartGaps.of(new long[]{0, 10 * MS, 20 * MS, 30 * MS, 131 * MS, 141 * MS});

        assertThat(gaps.medianNanos()).isEqualTo(10 * MS);
        assertThat(gaps.threshold()).isEqualTo(100 * MS);
        assertThat(gaps.stalled()).isTrue();
        assertThat(gaps.describe()).isEqualTo("stall: no start for 101 ms from 30 ms on (threshold 100 ms)");
    }

    @Test
    void aSlowButSteadyDrainIsJudgedByItsOwnMedian() {
        StartGaps steady = StartGaps.of(new long[]{0, 50 * MS, 100 * MS, 150 * MS, 400 * MS});
        StartGaps stalled = StartGaps.of(new long[]{0, 50 * MS, 100 * MS, 150 * MS, 401 * MS});

        assertThat(steady.threshold()).isEqualTo(250 * MS);
        assertThat(steady.stalled()).isFalse();
        assertThat(stalled.stalled()).isTrue();
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertThat(StartGaps.of(new long[]{0, 2, 6, 12, 20}).medianNanos()).isEqualTo(5);
    }

    @Test
    void fewerThanTwoStartsHaveNoGapAndNoStall() {
        for (long[] starts : List.of(new long[0], new long[]{42})) {
            StartGaps gaps = StartGaps.of(starts);

            assertThat(gaps.starts()).isEqualTo(starts.length);
            assertThat(gaps.longestNanos()).isZero();
            assertThat(gaps.medianNanos()).isZero();
            assertThat(gaps.stalled()).isFalse();
        }
    }

    @Test
    void theCallersArrayIsLeftAsItWas() {
        long[] starts = {30, 10, 20};

        StartGaps.of(starts);

        assertThat(starts).containsExactly(30, 10, 20);
    }
}
