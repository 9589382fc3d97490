package dev.docket.server.dashboard;

import dev.docket.QueueStats;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The last hour of throughput and failures per queue, as the metrics refresher samples them (the rates
 * of the cluster's counters, {@code QueueMetrics.withClusterRates}), so a dashboard opened now can draw
 * the hour before it opened. Held in memory: a restarted server
 * starts a fresh history. Samples are aged on this JVM's monotonic clock and served as "seconds
 * ago", so the browser's clock (whatever it says) only places them relative to its own now.
 */
public final class StatsHistory {

    /** Completed and failed jobs of one queue in the minute before a sample. */
    public record QueueRate(String queue, long completedPerMinute, long failedPerMinute) {
    }

    private record Sample(long atNanos, List<QueueRate> queues) {
    }

    private final Duration window;
    private final LongSupplier nanoClock;
    private final Deque<Sample> samples = new ArrayDeque<>();

    public StatsHistory(Duration window) {
        this(window, System::nanoTime);
    }

    StatsHistory(Duration window, LongSupplier nanoClock) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window must be positive, was " + window);
        }
        this.window = window;
        this.nanoClock = nanoClock;
    }

    /** Records one refresh of the statistics (kinds summed per queue) and forgets samples older than the window. */
    public void record(List<QueueStats> stats) {
        Map<String, long[]> byQueue = new LinkedHashMap<>();
        for (QueueStats s : stats) {
            long[] sums = byQueue.computeIfAbsent(s.queue(), q -> new long[2]);
            sums[0] += s.completedLastMinute();
            sums[1] += s.failedLastMinute();
        }
        List<QueueRate> rates = new ArrayList<>();
        byQueue.forEach((queue, sums) -> rates.add(new QueueRate(queue, sums[0], sums[1])));
        long now = nanoClock.getAsLong();
        synchronized (samples) {
            samples.addLast(new Sample(now, List.copyOf(rates)));
            while (!samples.isEmpty() && now - samples.peekFirst().atNanos() > window.toNanos()) {
                samples.removeFirst();
            }
        }
    }

    /**
     * The JSON shape of {@code GET /api/stats/history}: {@code {windowSeconds, samples: [{secondsAgo,
     * queues: [{queue, completedPerMinute, failedPerMinute}]}]}}, oldest sample first.
     */
    public record View(long windowSeconds, List<Point> samples) {
    }

    /** One sample, aged in seconds on the server's clock. */
    public record Point(double secondsAgo, List<QueueRate> queues) {
    }

    /** The samples within the window, oldest first. */
    public View view() {
        List<Sample> copy;
        synchronized (samples) {
            copy = new ArrayList<>(samples);
        }
        long now = nanoClock.getAsLong();
        List<Point> out = new ArrayList<>(copy.size());
        for (Sample s : copy) {
            if (now - s.atNanos() <= window.toNanos()) {
                out.add(new Point(Math.max(0, (now - s.atNanos()) / 1_000_000) / 1000.0, s.queues()));
            }
        }
        return new View(window.toSeconds(), out);
    }
}
