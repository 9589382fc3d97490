package dev.docket.bench;

import dev.docket.Docket;
import dev.docket.NewJob;
import dev.docket.Worker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Docket with its public API. Configs: {@code default} (7-day history), {@code delete} (historyRetention 0),
 * for drain only when named, {@code async} ({@code delete} with the workers' {@code asyncCommit(true)}: outcomes
 * and lease extensions commit without waiting for the WAL flush) and, for the {@code txhandler} scenario,
 * {@code transactional} (default, with a transactional handler that inserts one row on its transaction).
 */
final class DocketSut implements Sut {

    /** The schema the benchmark's Docket uses (also the scale-out worker processes'). */
    static final String SCHEMA = "bench";

    record Ping(long seq) {
    }

    static final String TRANSACTIONAL = "transactional";
    static final String ASYNC = "async";

    private boolean transactional;
    private boolean asyncCommit;
    private Docket docket;
    private Worker worker;

    @Override
    public String name() {
        return "docket";
    }

    @Override
    public List<String> configs(String scenario) {
        return switch (scenario) {
            case "drain" -> List.of("default", "delete", ASYNC);
            case "steady", "soak" -> List.of("default", "delete");
            case "scaleout" -> List.of("default");
            case "fairness" -> List.of(TenantFairness.CAPPED, TenantFairness.UNCAPPED);
            case "txhandler" -> List.of("default", TRANSACTIONAL);
            case "sequences" -> List.of(SequenceDrain.KEYED, SequenceDrain.UNKEYED);
            case "signals" -> List.of(SignalDrain.AT_ENQUEUE, SignalDrain.IN_HANDLER);
            case "ratelimit" -> List.of(RateLimitLoad.LIMITED, RateLimitLoad.UNLIMITED);
            default -> List.of("default");
        };
    }

    @Override
    public boolean optIn(String config) {
        return config.equals(ASYNC);
    }

    @Override
    public LiveJobs liveJobs() {
        return new LiveJobs("SELECT count(*) FROM " + SCHEMA + ".jobs", List.of(SCHEMA + ".jobs"));
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) throws Exception {
        Docket.Builder b = Docket.builder(dataSource).schema(SCHEMA);
        if (config.equals("delete") || config.equals(ASYNC)) {
            b.historyRetention(Duration.ZERO);
        }
        asyncCommit = config.equals(ASYNC);
        docket = b.build();
        docket.migrate();
        transactional = config.equals(TRANSACTIONAL);
        if (transactional) {
            try (Connection c = dataSource.getConnection()) {
                Db.execute(c, "CREATE TABLE " + SCHEMA + ".tx_effects (seq bigint PRIMARY KEY)");
            }
        }
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
        Worker.Builder b = docket.worker().queue("default", concurrency).asyncCommit(asyncCommit);
        if (transactional) {
            b.transactionalHandler("noop", Ping.class, (p, ctx, tx) -> {
                onStart.started(p.seq(), System.nanoTime());
                try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + SCHEMA + ".tx_effects VALUES (?)")) {
                    ps.setLong(1, p.seq());
                    ps.executeUpdate();
                }
            });
        } else {
            b.handler("noop", Ping.class, (p, ctx) -> onStart.started(p.seq(), System.nanoTime()));
        }
        worker = b.start();
    }

    @Override
    public void stopWorkers() {
        if (worker != null) {
            worker.close();
            worker = null;
        }
    }

    /** Closing Docket stops its workers too. */
    @Override
    public void close() {
        if (docket != null) {
            docket.close();
        }
    }
}
