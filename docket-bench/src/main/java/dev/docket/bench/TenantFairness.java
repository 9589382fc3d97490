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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code fairness} scenario (Docket only: the peers have no tenant caps). One tenant floods the queue,
 * then a calm tenant enqueues {@link #CALM} jobs behind the flood; one worker of concurrency 8 runs
 * no-op jobs. Reports how long the calm tenant's last job waited for its start, and how many flood jobs
 * started before it: with a tenant cap the calm tenant gets its share at once, without one it waits
 * behind the whole flood. The unit suite asserts the same ordering on a small flood.
 */
final class TenantFairness {

    static final int CALM = 1_000;
    static final int TENANT_CAP = 4;
    /** The two configurations, as {@link DocketSut#configs} names them. */
    static final String CAPPED = "tenant cap " + TENANT_CAP;
    static final String UNCAPPED = "no cap";

    record Job(long n) {
    }

    private TenantFairness() {
    }

    /** Runs the scenario on {@code docket}'s empty schema with {@code floodJobs} flood jobs in {@code config}. */
    static Map<String, double[]> run(Docket docket, int floodJobs, String config) throws InterruptedException {
        if (config.equals(CAPPED)) {
            docket.admin().setQueueLimits("default", null, TENANT_CAP);
        }
        JobOptions flood = JobOptions.builder().tenant("flood").build();
        JobOptions calm = JobOptions.builder().tenant("calm").build();
        List<NewJob> batch = new ArrayList<>(Bench.CHUNK);
        for (int i = 0; i < floodJobs; i++) {
            batch.add(NewJob.of("job", new Job(i), flood));
            if (batch.size() == Bench.CHUNK || i == floodJobs - 1) {
                docket.enqueueAll(batch);
                batch.clear();
            }
        }
        for (int i = 0; i < CALM; i++) {
            batch.add(NewJob.of("job", new Job(i), calm));
        }
        long calmEnqueued = System.nanoTime();
        docket.enqueueAll(batch);

        AtomicLong floodStarted = new AtomicLong();
        Map<Long, long[]> calmStarts = new ConcurrentHashMap<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        try (Worker ignored = docket.worker().queue("default", 8)
                .handler("job", Job.class, (job, ctx) -> {
                    if ("calm".equals(ctx.tenant())) {
                        calmStarts.put(ctx.jobId(), new long[] {System.nanoTime(), floodStarted.get()});
                    } else {
                        floodStarted.incrementAndGet();
                    }
                })
                .start()) {
            while (calmStarts.size() < CALM) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(calmStarts.size() + " of " + CALM + " calm jobs started in 10 min");
                }
                Thread.sleep(20);
            }
        }
        long lastStart = calmStarts.values().stream().mapToLong(s -> s[0]).max().orElseThrow();
        long floodAhead = calmStarts.values().stream().mapToLong(s -> s[1]).max().orElseThrow();
        Map<String, double[]> m = new LinkedHashMap<>();
        m.put("calm tenant's last start ms", new double[] {(lastStart - calmEnqueued) / 1e6});
        m.put("flood started before it, jobs", new double[] {floodAhead});
        return m;
    }
}
