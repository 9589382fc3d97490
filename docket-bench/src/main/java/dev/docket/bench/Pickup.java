package dev.docket.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/** Idle pickup: single jobs spaced 20 ms apart on an idle queue, from enqueue commit to handler start. */
final class Pickup {
    private Pickup() {
    }

    static Map<String, double[]> run(Sut sut, int n) throws Exception {
        AtomicLongArray started = new AtomicLongArray(n);
        long[] committed = new long[n];
        sut.startWorkers(8, (seq, nanoTime) -> {
            if (seq >= 0 && seq < n) {
                started.compareAndSet((int) seq, 0, nanoTime);
            }
        });
        Thread.sleep(1500); // listeners up, first polls done
        for (int i = 0; i < n; i++) {
            sut.enqueueOne(i);
            committed[i] = System.nanoTime();
            Thread.sleep(20);
        }
        long limit = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < limit && !allSet(started)) {
            Thread.sleep(20);
        }
        sut.stopWorkers();
        Histogram h = new Histogram(3_600_000_000L, 3);
        int missing = 0;
        for (int i = 0; i < n; i++) {
            if (started.get(i) == 0) {
                missing++;
                continue;
            }
            // The handler can start before the enqueuing client has received its commit acknowledgement.
            h.recordValue(Math.max(0, (started.get(i) - committed[i]) / 1000));
        }
        if (missing > 0) {
            throw new IllegalStateException(missing + " of " + n + " jobs did not start within 30 s");
        }
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("pickup p50 ms", new double[]{h.getValueAtPercentile(50) / 1000.0});
        m.put("pickup p99 ms", new double[]{h.getValueAtPercentile(99) / 1000.0});
        m.put("pickup max ms", new double[]{h.getMaxValue() / 1000.0});
        return m;
    }

    private static boolean allSet(AtomicLongArray a) {
        for (int i = 0; i < a.length(); i++) {
            if (a.get(i) == 0) {
                return false;
            }
        }
        return true;
    }
}
