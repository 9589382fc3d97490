package dev.docket.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
    private static final long TICKS_PER_MINUTE = 6_000;

    /** (4) steady state: 70% of the drain rate; completed rate and backlog. */
    static Map<String, double[]> steady(Sut sut, int concurrency, double drainRate, Duration duration, DataSource ds)
            throws Exception {
        double rate = Double.isNaN(drainRate) ? FALLBACK_RATE : 0.7 * drainRate;
        Produced p = produceAtRate(sut, ds, concurrency, rate, duration, null, null);
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
        Produced p = produceAtRate(sut, ds, concurrency, rate, duration, () -> relationSize(ds, sut), () -> checkpoints(ds));
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("offered jobs/s", new double[]{p.enqueued / p.seconds});
        m.put("start p99 ms (first 10%)", new double[]{p.first.getValueAtPercentile(99) / 1000.0});
        m.put("start p99 ms (last 10%)", new double[]{p.last.getValueAtPercentile(99) / 1000.0});
        if (p.minutes.size() > 1) {
            m.put("start p99 ms (first minute)", new double[]{p.minutes.getFirst().getValueAtPercentile(99) / 1000.0});
            m.put("start p99 ms (last minute)", new double[]{p.minutes.getLast().getValueAtPercentile(99) / 1000.0});
        }
        m.put("size kB (start)", new double[]{p.sizeStart});
        m.put("size kB (end)", new double[]{p.sizeEnd});
        m.put("backlog end", new double[]{p.backlogEnd});
        return m;
    }

    /**
     * Checkpoints the server has begun so far (timed and requested), or NaN where it cannot say:
     * a soak's latency is read beside them, as a checkpoint's full-page writes slow the commits after it.
     */
    private static double checkpoints(DataSource ds) {
        try {
            return Db.count(ds, "SELECT num_timed + num_requested FROM pg_stat_checkpointer");
        } catch (Exception e) {
            return Double.NaN;
        }
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
                            Histogram last, double sizeStart, double sizeEnd, List<Histogram> minutes) {
    }

    /**
     * Enqueues at {@code rate} jobs/s in 10 ms ticks while workers run; measures enqueue-to-start latency, and
     * the backlog on {@code ds}. With {@code checkpoints}, prints each minute's start p99 beside the checkpoints
     * begun in it.
     */
    private static Produced produceAtRate(Sut sut, DataSource ds, int concurrency, double rate, Duration duration,
                                          Supplier<Double> size, Supplier<Double> checkpoints) throws Exception {
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
        List<Double> checkpointsAt = new ArrayList<>();
        if (checkpoints != null) {
            checkpointsAt.add(checkpoints.get());
        }
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
            if (checkpoints != null && tick % TICKS_PER_MINUTE == 0) {
                checkpointsAt.add(checkpoints.get());
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
        List<Histogram> minutes = new ArrayList<>();
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
            int minute = (int) ((committed[i] - t0) / 60_000_000_000L);
            while (minutes.size() <= minute) {
                minutes.add(new Histogram(3_600_000_000L, 3));
            }
            minutes.get(minute).recordValue(us);
        }
        for (int i = 0; i < minutes.size() && checkpoints != null; i++) {
            double begun = i + 1 < checkpointsAt.size() ? checkpointsAt.get(i + 1) - checkpointsAt.get(i) : Double.NaN;
            System.out.printf(Locale.ROOT, "soak minute %d: %d jobs started, start p50 %.2f ms, p99 %.2f ms, max %.1f ms;"
                            + " checkpoints begun %s%n", i + 1, minutes.get(i).getTotalCount(),
                    minutes.get(i).getValueAtPercentile(50) / 1000.0, minutes.get(i).getValueAtPercentile(99) / 1000.0,
                    minutes.get(i).getMaxValue() / 1000.0, Double.isNaN(begun) ? "-" : Long.toString((long) begun));
        }
        return new Produced(seq, seconds, backlogMid, backlogEnd, first, last, sizeStart, sizeEnd, minutes);
    }
}
