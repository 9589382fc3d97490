package dev.docket.bench;

import dev.docket.Docket;
import dev.docket.NewJob;
import dev.docket.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** Docket with its public API. Configs: {@code default} (7-day history) and {@code delete} (historyRetention 0). */
final class DocketSut implements Sut {

    /** The schema the benchmark's Docket uses (also the scale-out worker processes'). */
    static final String SCHEMA = "bench";

    record Ping(long seq) {
    }

    private DataSource ds;
    private Docket docket;
    private Worker worker;

    @Override
    public String name() {
        return "docket";
    }

    @Override
    public List<String> configs(String scenario) {
        return switch (scenario) {
            case "drain", "steady", "soak" -> List.of("default", "delete");
            case "scaleout" -> List.of("default");
            case "fairness" -> List.of(TenantFairness.CAPPED, TenantFairness.UNCAPPED);
            case "ratelimit" -> List.of(RateLimitLoad.LIMITED, RateLimitLoad.UNLIMITED);
            default -> List.of("default");
        };
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) {
        this.ds = dataSource;
        Docket.Builder b = Docket.builder(dataSource).schema(SCHEMA);
        if (config.equals("delete")) {
            b.historyRetention(Duration.ZERO);
        }
        docket = b.build();
        docket.migrate();
    }

    Docket docket() {
        return docket;
    }

    @Override
    public void enqueueBatch(long from, int count) {
        List<NewJob> jobs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            jobs.add(NewJob.of("noop", new Ping(from + i)));
        }
        docket.enqueueAll(jobs);
    }

    @Override
    public void enqueueOne(long seq) {
        docket.enqueue("noop", new Ping(seq));
    }

    @Override
    public void startWorkers(int concurrency, Starts onStart) {
        worker = docket.worker()
                .queue("default", concurrency)
                .handler("noop", Ping.class, (p, ctx) -> onStart.started(p.seq(), System.nanoTime()))
                .start();
    }

    @Override
    public void stopWorkers() {
        if (worker != null) {
            worker.close();
            worker = null;
        }
    }

    @Override
    public long liveCount() throws Exception {
        return Db.count(ds, "SELECT count(*) FROM bench.jobs");
    }

    @Override
    public List<String> relations() {
        return List.of("bench.jobs");
    }

    @Override
    public void close() {
        stopWorkers();
        if (docket != null) {
            docket.close();
        }
    }
}
