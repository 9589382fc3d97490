package dev.docket.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.QueueStats;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StatsHistoryTest {

    private final AtomicLong clock = new AtomicLong(1_000_000_000_000L);
    private final StatsHistory history = new StatsHistory(Duration.ofMinutes(60), clock::get);

    private static QueueStats stats(String queue, String kind, long completed, long failed) {
        return new QueueStats(queue, kind, 0, 0, 0, 0, 0, completed, failed, 0, 0, null, null);
    }

    private List<StatsHistory.Point> samples() {
        return history.view().samples();
    }

    /** Kinds are summed per queue; samples are served oldest first, aged by the server's monotonic clock. */
    @Test
    void sumsKindsPerQueueAndAgesSamples() {
        history.record(List.of(stats("default", "a", 10, 1), stats("default", "b", 5, 2), stats("mail", "c", 7, 0)));
        clock.addAndGet(Duration.ofSeconds(5).toNanos());
        history.record(List.of(stats("default", "a", 12, 0)));
        clock.addAndGet(Duration.ofMillis(1500).toNanos());

        List<StatsHistory.Point> samples = samples();
        assertThat(samples).hasSize(2);
        assertThat(samples.get(0).secondsAgo()).isEqualTo(6.5);
        assertThat(samples.get(1).secondsAgo()).isEqualTo(1.5);
        assertThat(samples.get(0).queues()).containsExactly(new StatsHistory.QueueRate("default", 15, 3),
                new StatsHistory.QueueRate("mail", 7, 0));
        assertThat(history.view().windowSeconds()).isEqualTo(3600L);
    }

    /** Samples older than the window are forgotten, on record and on read. */
    @Test
    void forgetsSamplesOlderThanTheWindow() {
        history.record(List.of(stats("default", "a", 1, 0)));
        clock.addAndGet(Duration.ofMinutes(59).toNanos());
        history.record(List.of(stats("default", "a", 2, 0)));
        assertThat(samples()).hasSize(2);
        clock.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(samples()).hasSize(1);
        history.record(List.of());
        assertThat(samples()).hasSize(2);
        assertThat(samples().getLast().queues()).isEmpty();
    }

    @Test
    void rejectsAnEmptyWindow() {
        assertThatIllegalArgumentException().isThrownBy(() -> new StatsHistory(Duration.ZERO)).withMessageContaining("window");
    }
}
