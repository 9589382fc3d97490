package dev.docket.bench;

import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import dev.docket.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The {@code sequences} scenario (Docket only: the peers have no ordered keys). N no-op jobs spread
 * over {@link #KEYS} sequence keys, or the same N jobs without keys: enqueue rows/s, then jobs/s
 * drained by one worker of concurrency 8. With keys, at most {@link #KEYS} jobs are claimable at a
 * time and each completion makes the next job of its key ready in the completing transaction, so the
 * keyed figure is the cost of ordering (and the drain is bounded by a key's serial round trip).
 */
final class SequenceDrain {

    static final int KEYS = 100;
    /** The two configurations, as {@link DocketSut#configs} names them. */
    static final String KEYED = KEYS + " keys";
    static final String UNKEYED = "no keys";

    record Job(long n) {
    }

    private SequenceDrain() {
    }

    /** Runs the scenario on {@code docket}'s empty schema with {@code jobs} jobs in {@code config}. */
    static Map<String, double[]> run(Docket docket, int jobs, String config) throws InterruptedException {
        boolean keyed = config.equals(KEYED);
        long enqueueStart = System.nanoTime();
        List<NewJob> batch = new ArrayList<>(Bench.CHUNK);
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.of("job", new Job(i),
                    keyed ? JobOptions.builder().sequenceKey("key-" + i % KEYS).build() : JobOptions.defaults()));
            if (batch.size() == Bench.CHUNK || i == jobs - 1) {
                docket.enqueueAll(batch);
                batch.clear();
            }
        }
        double enqueueSeconds = (System.nanoTime() - enqueueStart) / 1e9;

        CountDownLatch done = new CountDownLatch(jobs);
        long drainStart = System.nanoTime();
        try (Worker ignored = docket.worker().queue("default", 8)
                .handler("job", Job.class, (job, ctx) -> done.countDown())
                .start()) {
            if (!done.await(Duration.ofMinutes(10).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(done.getCount() + " of " + jobs + " jobs left after 10 min");
            }
        }
        double drainSeconds = (System.nanoTime() - drainStart) / 1e9;
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("enqueue rows/s", new double[] {jobs / enqueueSeconds});
        m.put("drain jobs/s", new double[] {jobs / drainSeconds});
        return m;
    }
}
