package dev.docket;

import dev.docket.internal.executor.CallerThreadRunner;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What {@link Worker.Builder#runReadyJobs()} and {@link Worker.Builder#runJobsDueWithin} do with a builder's settings. */
final class CallerThreadJobs {

    private CallerThreadJobs() {
    }

    /** Makes jobs due within {@code makeDue} ready first, unless it is null; then runs every ready job. */
    static List<JobRun> run(DocketWiring wiring, WorkerConfig config, Map<String, Integer> queues, Handlers handlers,
                            Duration makeDue) {
        if (queues.isEmpty() || handlers.isEmpty()) {
            throw new IllegalStateException("running jobs needs at least one queue and one handler: call "
                    + ".queue(name, concurrency) and .handler(kind, type, handler)");
        }
        wiring.schemaGuard().require();
        CallerThreadRunner runner = new CallerThreadRunner(wiring.store(), handlers.bindings(),
                wiring.kinds()::retryPolicy, wiring.codec(), wiring.crypto(), List.copyOf(queues.keySet()), config.lease(),
                config.workerId(), !wiring.historyRetention().isZero());
        try {
            if (makeDue != null) {
                runner.makeDue(makeDue);
            }
            return runner.runReady();
        } catch (SQLException e) {
            throw new DocketException("docket: running ready jobs failed: " + e.getMessage(), e);
        }
    }
}
