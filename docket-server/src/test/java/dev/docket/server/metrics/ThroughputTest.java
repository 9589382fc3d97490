package dev.docket.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.OutcomeTotals;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Per-minute rates from samples of the cluster's counters, on a clock the test moves. */
class ThroughputTest {

    private final AtomicLong clock = new AtomicLong(5_000_000_000_000L);
    private final Throughput throughput = new Throughput(clock::get);

    private void after(Duration d, OutcomeTotals... totals) {
        clock.addAndGet(d.toNanos());
        throughput.record(List.of(totals));
    }

    private static OutcomeTotals totals(String kind, long completed, long failed) {
        return new OutcomeTotals("default", kind, completed, failed, 0);
    }

    @Test
    void noRateBeforeTheSecondSampleAndNoneCountedAfterIt() {
        throughput.record(List.of());
        assertThat(throughput.perMinute()).as("unknown").isEmpty();
        after(Duration.ofSeconds(5));
        assertThat(throughput.perMinute()).as("known: nothing counted").hasValue(Map.of());
    }

    /** Less than a minute of samples: the rate over what there is, scaled to a minute. */
    @Test
    void aShortHistoryIsScaledToAMinute() {
        after(Duration.ZERO, totals("a", 100, 10));
        after(Duration.ofSeconds(5), totals("a", 110, 12), totals("b", 3, 0));

        assertThat(throughput.perMinute().orElseThrow()).containsEntry(List.of("default", "a"), new Throughput.Rate(120, 24))
                .containsEntry(List.of("default", "b"), new Throughput.Rate(36, 0));
    }

    /** With samples every 5 s for two minutes, the rate is over the newest sample and the one a minute before it. */
    @Test
    void theRateCoversTheLastMinute() {
        long completed = 0;
        for (int i = 0; i <= 24; i++) {
            // 10 jobs per 5 s for the first minute, then 50 per 5 s.
            completed += i == 0 ? 0 : i <= 12 ? 10 : 50;
            after(Duration.ofSeconds(i == 0 ? 0 : 5), totals("a", completed, 0));
        }
        assertThat(throughput.perMinute().orElseThrow().get(List.of("default", "a"))).isEqualTo(new Throughput.Rate(600, 0));
    }

    /** A total that went down (a database restored from a backup) is no change, never a negative rate. */
    @Test
    void aTotalThatWentDownIsNoChange() {
        after(Duration.ZERO, totals("a", 100, 5));
        after(Duration.ofSeconds(30), totals("a", 40, 5));
        assertThat(throughput.perMinute().orElseThrow().get(List.of("default", "a"))).isEqualTo(new Throughput.Rate(0, 0));
    }
}
