package dev.docket.spring;

import dev.docket.Docket;
import dev.docket.Worker;
import dev.docket.WorkerHealth;
import java.util.Optional;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Docket's part of {@code /actuator/health}, under {@code docket}: up when the schema is at the version
 * this Docket needs and, while the application runs a worker, its services are healthy
 * ({@link WorkerHealth}) and its notification listener is connected (when {@code docket.worker.listen}).
 * Down otherwise, or when the database cannot be reached. Details: the schema versions, and the
 * worker's id, leadership, jobs in flight, listener, and failing or stalled services.
 */
public class DocketHealthIndicator extends AbstractHealthIndicator {

    private final Docket docket;
    private final DocketWorkers workers;
    private final boolean listen;

    /** Reports on {@code docket} and the worker of {@code workers}; {@code listen}: whether that worker should be listening. */
    public DocketHealthIndicator(Docket docket, DocketWorkers workers, boolean listen) {
        super("Docket health check failed");
        this.docket = docket;
        this.workers = workers;
        this.listen = listen;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        int found = docket.schemaVersion();
        int wanted = Docket.supportedSchemaVersion();
        boolean up = found == wanted;
        builder.withDetail("schema", docket.schema()).withDetail("schemaVersion", found)
                .withDetail("supportedSchemaVersion", wanted);
        Optional<Worker> worker = workers.worker();
        if (worker.isPresent()) {
            WorkerHealth health = worker.get().health();
            builder.withDetail("workerId", health.workerId()).withDetail("leader", health.leader())
                    .withDetail("inFlight", health.inFlight()).withDetail("listening", health.listening())
                    .withDetail("failingServices", health.failingServices())
                    .withDetail("stalledServices", health.stalledServices());
            up = up && health.healthy() && (!listen || health.listening());
        } else {
            builder.withDetail("worker", "not running");
        }
        if (up) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
