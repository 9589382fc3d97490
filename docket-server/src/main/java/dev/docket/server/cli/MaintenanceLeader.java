package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.Worker;
import java.time.Duration;

/**
 * The cluster's maintenance (making due jobs ready, rescuing expired leases, cron, retention) from a
 * process that runs no jobs itself, such as {@code docket serve}: a worker with no queue, which takes
 * part in the leader election like every worker with maintenance on and maintains while it leads.
 */
final class MaintenanceLeader implements AutoCloseable {

    private final Worker worker;

    private MaintenanceLeader(Worker worker) {
        this.worker = worker;
    }

    static MaintenanceLeader start(Docket docket) {
        return new MaintenanceLeader(docket.worker().listen(false).maintenance(true).shutdownGrace(Duration.ZERO).start());
    }

    boolean isLeader() {
        return worker.isLeader();
    }

    @Override
    public void close() {
        worker.close();
    }
}
