package dev.docket.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Load at a fixed rate while workers run: producers enqueue in 10 ms ticks and every job's enqueue-to-start
 * latency is recorded. The steady scenario offers 70% of the system's drain rate, the soak half of it.
 */
final class RateLoad {
    private RateLoad() {
    }

    /** Without a drain rate measured in this run, a fixed 1,000 jobs/s is offered. */
    private static final double FALLBACK_RATE = 1000;

    /** (4) steady state: 70% of the drain rate; completed rate and backlog. */
    static Map<String, double[]> steady(Sut sut, int concurrency, double drainRate, Duration duration, DataSource ds)
            throws Exception {
        double rate = Double.isNaN(drainRate) ? FALLBACK_RATE : 0.7 * drainRate;
        Produced p = produceAtRate(sut, ds, concurrency, rate, duration, null);
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("offered jobs/s", new double[]{p.enqueued / p.seconds});
        m.put("completed jobs/s", new double[]{(p.enqueued - p.backlogEnd) / p.seconds});
        m.put("backlog mid", new double[]{p.backlogMid});
        m.put("backlog end", new double[]{p.backlogEnd});
        return m;
    }

    /** (6) soak: half the drain rate for a long time; start p99 and the live relations' size at start and end. */
    static Map<String, double[]> soak(Sut sut, int concurrency, double drainRate, Duration duration, DataSource ds)
            throws Exception {
        double rate = Double.isNaN(drainRate) ? FALLBACK_RATE : 0.5 * drainRate;
        Produced p = produceAtRate(sut, ds, concurrency, rate, duration, () -> relationSize(ds, sut));
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("offered jobs/s", new double[]{p.enqueued / p.seconds});
        m.put("start p99 ms (first 10%)", new double[]{p.first.getValueAtPercentile(99) / 1000.0});
        m.put("start p99 ms (last 10%)", new double[]{p.last.getValueAtPercentile(99) / 1000.0});
        m.put("size kB (start)", new double[]{p.sizeStart});
        m.put("size kB (end)", new double[]{p.sizeEnd});
        m.put("backlog end", new double[]{p.backlogEnd});
        return m;
    }

    private static double relationSize(DataSource ds, Sut sut) {
        try {
            long total = 0;
            for (String r : sut.liveJobs().relations()) {
                total += Db.count(ds, "SELECT pg_total_relation_size('" + r + "')");
            }
            return total / 1024.0;
        } catch (Exception e) {
            return Double.NaN;
        }
    }

    private record Produced(long enqueued, double seconds, long backlogMid, long backlogEnd, Histogram first,
                            Histogram last, double sizeStart, double sizeEnd) {
    }

    /**
     * Enqueues at {@code rate} jobs/s in 10 ms ticks while workers run; measures enqueue-to-start latency, and
     * the backlog on {@code ds}.
     */
    private static Produced produceAtRate(Sut sut, DataSource ds, int concurrency, double rate, Duration duration,
                                          Supplier<Double> size) throws Exception {
        long ticks = duration.toMillis() / 10;
        int cap = (int) Math.min(50_000_000, Math.ceil(rate * duration.toMillis() / 1000.0) + ticks + 10);
        long[] committed = new long[cap];
        AtomicLongArray started = new AtomicLongArray(cap);
        sut.startWorkers(concurrency, (seq, nanoTime) -> {
            if (seq >= 0 && seq < cap) {
                started.compareAndSet((int) seq, 0, nanoTime);
            }
        });
        Thread.sleep(500);
        long t0 = System.nanoTime();
        long seq = 0;
        long backlogMid = 0;
        double sizeStart = Double.NaN;
        for (long tick = 1; tick <= ticks; tick++) {
            long target = Math.min(cap, (long) (rate * tick / 100.0));
            if (target > seq) {
                int count = (int) (target - seq);
                sut.enqueueBatch(seq, count);
                long now = System.nanoTime();
                for (long i = seq; i < target; i++) {
                    committed[(int) i] = now;
                }
                seq = target;
            }
            if (tick == ticks / 2) {
                backlogMid = sut.liveJobs().count(ds);
            }
            if (size != null && tick == Math.max(1, ticks / 10)) {
                sizeStart = size.get();
            }
            long sleep = t0 + tick * 10_000_000L - System.nanoTime();
            if (sleep > 0) {
                Thread.sleep(sleep / 1_000_000, (int) (sleep % 1_000_000));
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long backlogEnd = sut.liveJobs().count(ds);
        double sizeEnd = size == null ? Double.NaN : size.get();
        sut.stopWorkers();
        Histogram first = new Histogram(3_600_000_000L, 3);
        Histogram last = new Histogram(3_600_000_000L, 3);
        long tenth = Math.max(1, seq / 10);
        for (int i = 0; i < seq; i++) {
            long s = started.get(i);
            if (s == 0) {
                continue;
            }
            long us = Math.max(0, (s - committed[i]) / 1000);
            if (i < tenth) {
                first.recordValue(us);
            } else if (i >= seq - tenth) {
                last.recordValue(us);
            }
        }
        return new Produced(seq, seconds, backlogMid, backlogEnd, first, last, sizeStart, sizeEnd);
    }
}
