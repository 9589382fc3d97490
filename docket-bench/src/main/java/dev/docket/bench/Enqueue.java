package dev.docket.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/** Loading a system's jobs, and the enqueue scenarios: bulk and single. */
final class Enqueue {

    private Enqueue() {
    }

    /** Loads jobs {@code 0 .. n-1} in chunks of {@link Bench#CHUNK}, one bulk call (transaction) per chunk. */
    static void load(Sut sut, int n) throws Exception {
        for (int i = 0; i < n; i += Bench.CHUNK) {
            sut.enqueueBatch(i, Math.min(Bench.CHUNK, n - i));
        }
    }

    /**
     * (1) bulk enqueue of N jobs in chunks of 1,000, one transaction per chunk; also the WAL the server wrote
     * meanwhile per job (the whole cluster's, but nothing else runs during a measurement), and for a server
     * on this host its CPU time per job ({@link PostgresCpu}).
     */
    static Map<String, double[]> bulk(Sut sut, DataSource ds, int jobs) throws Exception {
        sut.enqueueBatch(10_000_000, 10); // warm-up
        Optional<PostgresCpu> cpu = PostgresCpu.of(ds);
        long wal0 = Db.walPosition(ds);
        long cpu0 = cpu.map(PostgresCpu::micros).orElse(0L);
        long t0 = System.nanoTime();
        load(sut, jobs);
        double s = (System.nanoTime() - t0) / 1e9;
        long cpuEnd = cpu.map(PostgresCpu::micros).orElse(0L);
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("enqueue jobs/s", new double[]{jobs / s});
        m.put("enqueue WAL bytes/job", new double[]{(double) (Db.walPosition(ds) - wal0) / jobs});
        if (cpu.isPresent()) {
            m.put("enqueue PostgreSQL CPU µs/job", new double[]{(double) (cpuEnd - cpu0) / jobs});
        }
        return m;
    }

    /** (2) single-job enqueue, one transaction each, from a few producer threads for a fixed time. */
    static Map<String, double[]> single(Sut sut, int producers, Duration duration) throws Exception {
        AtomicLong seq = new AtomicLong();
        long deadline = System.nanoTime() + duration.toNanos();
        List<Thread> threads = new ArrayList<>();
        List<Exception> errors = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int p = 0; p < producers; p++) {
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < deadline) {
                        sut.enqueueOne(seq.getAndIncrement());
                    }
                } catch (Exception e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        if (!errors.isEmpty()) {
            throw errors.get(0);
        }
        double s = (System.nanoTime() - t0) / 1e9;
        return Map.of("enqueue jobs/s", new double[]{seq.get() / s});
    }
}
