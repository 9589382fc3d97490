package dev.docket.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.sql.DataSource;

/**
 * The drain, timed the same way for every system: N pre-enqueued no-op jobs, from the first handler start
 * until the last job is durably finished. Starts are counted in this JVM as the systems report them, so
 * the database carries only the system's own load while jobs run; once all N have started, the live count
 * is polled a few milliseconds apart until it reads 0, and that moment ends the drain. Connecting the
 * workers is not timed (it happens before the first start). The jobs' tables are analyzed before the
 * workers start. Each start time is kept for {@link StartGaps}. Besides the rate: the WAL the server wrote
 * per job during the drain and over the job's whole life (the load and the drain, not the ANALYZE between),
 * and, for a server on this host, the CPU time PostgreSQL spent per job on the same spans
 * ({@link PostgresCpu}: every server process, the backends serving the system's claims and outcomes as
 * much as autovacuum and the WAL writer).
 */
final class Drain {

    static final String STALL_METRIC = "drain longest stall ms";

    /** Short enough to end a drain's tail within a percent of a 50,000-job drain at 30,000 jobs/s. */
    private static final long POLL_MILLIS = 2;

    private Drain() {
    }

    /** Drains {@code jobs} jobs; the measurement's stall is set when the gaps between starts flag one. */
    static Bench.Measurement run(Sut sut, DataSource ds, int concurrency, int jobs, Duration limit) throws Exception {
        Optional<PostgresCpu> cpu = PostgresCpu.of(ds);
        long loadWal0 = Db.walPosition(ds);
        long loadCpu0 = cpu.map(PostgresCpu::micros).orElse(0L);
        Enqueue.load(sut, jobs);
        long loadWal = Db.walPosition(ds) - loadWal0;
        long loadCpu = cpu.map(PostgresCpu::micros).orElse(0L) - loadCpu0;
        Recorder starts = new Recorder(jobs);
        try (Connection poll = ds.getConnection(); Statement count = poll.createStatement()) {
            // A fresh database has no statistics until autovacuum's first round, a minute away: without
            // them the planner reads and sorts every ready row for each claim (bitmap scan and sort)
            // instead of walking the ready index to its LIMIT (docket-bench/results/yardstick-notes.md).
            // Every system gets them, as a table in use has them.
            count.execute("ANALYZE");
            long wal0 = Db.walPosition(ds);
            long cpu0 = cpu.map(PostgresCpu::micros).orElse(0L);
            long deadline = System.nanoTime() + limit.toNanos();
            sut.startWorkers(concurrency, starts);
            if (!starts.all.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(starts.distinct.get() + " of " + jobs + " jobs started in "
                        + limit.toSeconds() + " s (" + live(count, sut) + " live)");
            }
            long left = live(count, sut);
            long end = System.nanoTime();
            while (left > 0 && end < deadline) {
                Thread.sleep(POLL_MILLIS);
                left = live(count, sut);
                end = System.nanoTime();
            }
            long walEnd = Db.walPosition(ds);
            long cpuEnd = cpu.map(PostgresCpu::micros).orElse(0L);
            long wal = walEnd - wal0;
            sut.stopWorkers();
            if (left > 0) {
                throw new IllegalStateException(left + " jobs still live " + limit.toSeconds() + " s after the workers started");
            }
            long[] at = starts.times();
            long first = Long.MAX_VALUE;
            for (long t : at) {
                first = Math.min(first, t);
            }
            StartGaps gaps = StartGaps.of(at);
            Map<String, double[]> m = new LinkedHashMap<>();
            m.put("drain jobs/s", new double[]{jobs / ((end - first) / 1e9)});
            m.put("drain WAL bytes/job", new double[]{(double) wal / jobs});
            // The job's whole life: its enqueue (the untimed load, in bulk), claim and outcome; not the ANALYZE between.
            m.put("enqueue+drain WAL bytes/job", new double[]{(double) (loadWal + wal) / jobs});
            if (cpu.isPresent()) {
                m.put("drain PostgreSQL CPU µs/job", new double[]{(double) (cpuEnd - cpu0) / jobs});
                m.put("enqueue+drain PostgreSQL CPU µs/job", new double[]{(double) (loadCpu + cpuEnd - cpu0) / jobs});
            }
            m.put(STALL_METRIC, new double[]{gaps.longestNanos() / 1e6});
            return new Bench.Measurement(m, gaps.stalled() ? gaps.describe() : null);
        }
    }

    private static long live(Statement count, Sut sut) throws Exception {
        try (ResultSet rs = count.executeQuery(sut.liveJobs().countSql())) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Each job's first start, by sequence number: a job that a system runs twice counts once, and the drain
     * waits for every job rather than for N starts.
     */
    private static final class Recorder implements Sut.Starts {
        private final AtomicLongArray at;
        private final AtomicInteger distinct = new AtomicInteger();
        private final CountDownLatch all = new CountDownLatch(1);

        Recorder(int jobs) {
            at = new AtomicLongArray(jobs);
        }

        @Override
        public void started(long seq, long nanoTime) {
            // 0 marks "not started"; a start at nanoTime 0 exactly is recorded a nanosecond later
            if (seq >= 0 && seq < at.length() && at.compareAndSet((int) seq, 0, nanoTime == 0 ? 1 : nanoTime)
                    && distinct.incrementAndGet() == at.length()) {
                all.countDown();
            }
        }

        long[] times() {
            long[] t = new long[at.length()];
            for (int i = 0; i < t.length; i++) {
                t[i] = at.get(i);
            }
            return t;
        }
    }
}
