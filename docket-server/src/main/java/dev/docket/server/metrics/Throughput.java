package dev.docket.server.metrics;

import dev.docket.OutcomeTotals;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Completed jobs and failed attempts per minute, per queue and kind, from the cluster's outcome
 * counters as the server samples them: the difference between the newest sample and the newest one
 * at least a minute older than it, scaled to a minute. The dashboard's figures and charts and the per-minute gauges
 * read these, so they show what {@code rate()} of {@code docket_cluster_*_total} shows, and count
 * jobs whose history is not kept. Samples are aged on this JVM's monotonic clock.
 */
final class Throughput {

    /** Completed jobs and failed attempts per minute. */
    record Rate(double completedPerMinute, double failedPerMinute) {
    }

    /** One sample: when it was read, and the totals per queue and kind (completed, failed attempts). */
    private record Sample(long atNanos, Map<List<String>, long[]> totals) {
    }

    private static final long MINUTE_NANOS = 60_000_000_000L;

    private final LongSupplier nanoClock;
    private final Deque<Sample> samples = new ArrayDeque<>();

    Throughput(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Adds a reading of the counters; keeps the newest sample at least a minute old, and the ones after it. */
    synchronized void record(List<OutcomeTotals> totals) {
        Map<List<String>, long[]> byKind = new HashMap<>();
        for (OutcomeTotals t : totals) {
            byKind.put(List.of(t.queue(), t.kind()), new long[] {t.completed(), t.failedAttempts()});
        }
        long now = nanoClock.getAsLong();
        samples.addLast(new Sample(now, byKind));
        while (samples.size() > 2 && now - secondOldest().atNanos() >= MINUTE_NANOS) {
            samples.removeFirst();
        }
    }

    private Sample secondOldest() {
        Iterator<Sample> it = samples.iterator();
        it.next();
        return it.next();
    }

    /**
     * The rates per queue and kind ({@code List.of(queue, kind)}) over the last minute, or over the time
     * since the first sample when the server has sampled for less; none (not an empty map, which says
     * that nothing was counted) before the second sample. A kind absent from the oldest sample had no
     * outcome then. A total that went down (a restored database) counts as no change.
     */
    synchronized Optional<Map<List<String>, Rate>> perMinute() {
        if (samples.size() < 2) {
            return Optional.empty();
        }
        Map<List<String>, Rate> rates = new HashMap<>();
        Sample base = samples.getFirst();
        Sample last = samples.getLast();
        double minutes = (last.atNanos() - base.atNanos()) / (double) MINUTE_NANOS;
        last.totals().forEach((key, now) -> {
            long[] then = base.totals().getOrDefault(key, new long[2]);
            rates.put(key, new Rate(Math.max(0, now[0] - then[0]) / minutes, Math.max(0, now[1] - then[1]) / minutes));
        });
        return Optional.of(rates);
    }
}
