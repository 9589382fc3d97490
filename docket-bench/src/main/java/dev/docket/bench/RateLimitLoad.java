package dev.docket.bench;

import dev.docket.Docket;
import dev.docket.NewJob;
import dev.docket.Worker;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The {@code ratelimit} scenario (Docket only: the peers have no rate limits in the claim). One queue holds
 * N jobs of a free kind, each chunk behind N/2 jobs of a kind limited to {@link #PERMITS} starts per
 * second (so the claim has to pass the limited kind's jobs to reach the free ones). One worker of
 * concurrency 8 runs no-op handlers until every free job has run. Reports the free kind's
 * throughput, the limited kind's starts per second meanwhile, and the claim statement's mean time
 * (Docket's own claim timer); the configuration without the limit is the baseline.
 */
final class RateLimitLoad {

    static final int PERMITS = 1_000;
    static final String LIMITED = "limit " + PERMITS + "/s";
    static final String UNLIMITED = "no limit";
    private static final String SCHEMA = "bench_ratelimit";

    record Job(long n) {
    }

    private RateLimitLoad() {
    }

    static Map<String, double[]> run(DataSource dataSource, int jobs, int concurrency, String config)
            throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Docket.Builder builder = Docket.builder(dataSource).schema(SCHEMA).meterRegistry(registry);
        if (config.equals(LIMITED)) {
            builder.rateLimit("limited", PERMITS, Duration.ofSeconds(1));
        }
        try (Docket docket = builder.build()) {
            docket.migrate();
            List<NewJob> batch = new ArrayList<>(Bench.CHUNK);
            for (int i = 0; i < jobs; i++) {
                if (i % 2 == 0) {
                    batch.add(NewJob.of("limited", new Job(i)));
                }
                batch.add(NewJob.of("free", new Job(i)));
                if (batch.size() >= Bench.CHUNK || i == jobs - 1) {
                    docket.enqueueAll(batch);
                    batch.clear();
                }
            }
            AtomicLong free = new AtomicLong();
            AtomicLong limited = new AtomicLong();
            long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
            long t0 = System.nanoTime();
            long elapsed;
            try (Worker ignored = docket.worker().queue("default", concurrency)
                    .handler("free", Job.class, (job, ctx) -> free.incrementAndGet())
                    .handler("limited", Job.class, (job, ctx) -> limited.incrementAndGet())
                    .start()) {
                while (free.get() < jobs) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(free.get() + " of " + jobs + " free jobs ran in 10 min");
                    }
                    Thread.sleep(5);
                }
                elapsed = System.nanoTime() - t0;
            }
            Timer claims = registry.find("docket.claim.duration").timer();
            Map<String, double[]> m = new LinkedHashMap<>();
            m.put("free kind jobs/s", new double[] {jobs / (elapsed / 1e9)});
            m.put("limited kind starts/s", new double[] {limited.get() / (elapsed / 1e9)});
            m.put("claim mean ms", new double[] {claims == null ? Double.NaN : claims.mean(TimeUnit.MILLISECONDS)});
            return m;
        }
    }
}
