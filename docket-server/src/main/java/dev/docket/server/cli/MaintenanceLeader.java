package dev.docket.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.Docket;
import dev.docket.PermanentJobFailure;
import dev.docket.Worker;
import java.time.Duration;

/**
 * The cluster's maintenance (making due jobs ready, rescuing expired leases, retention) from a
 * process that runs no jobs itself, such as {@code docket serve}. A {@link Worker} must serve a
 * queue, so this one serves a private queue, {@value #QUEUE}, that nobody enqueues to, polled once a
 * minute; it takes part in the leader election like every worker with maintenance on, and does the
 * maintenance while it is the leader.
 */
final class MaintenanceLeader implements AutoCloseable {

    /** The private queue; a job that lands on it anyway goes to the dead-letter table. */
    static final String QUEUE = "docket.maintenance";

    private final Worker worker;

    private MaintenanceLeader(Worker worker) {
        this.worker = worker;
    }

    static MaintenanceLeader start(Docket docket) {
        Worker worker = docket.worker()
                .queue(QUEUE, 1)
                .handler("docket.maintenance", JsonNode.class, (payload, ctx) -> {
                    throw new PermanentJobFailure("the " + QUEUE + " queue is reserved for Docket's maintenance worker");
                })
                .listen(false)
                .pollInterval(Duration.ofMinutes(1))
                .maintenance(true)
                .shutdownGrace(Duration.ZERO)
                .start();
        return new MaintenanceLeader(worker);
    }

    boolean isLeader() {
        return worker.isLeader();
    }

    @Override
    public void close() {
        worker.close();
    }
}
