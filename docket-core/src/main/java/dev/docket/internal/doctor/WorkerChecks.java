package dev.docket.internal.doctor;

import dev.docket.WorkerInfo;
import java.util.List;

/** The registered workers: who is live, whose heartbeats stopped, pools too small, listeners down, stalls. */
final class WorkerChecks {

    void run(Findings findings, List<WorkerInfo> workers) {
        List<WorkerInfo> live = workers.stream().filter(WorkerInfo::live).toList();
        if (live.isEmpty()) {
            findings.warning("workers", "workers", "no live worker is registered", workers.size()
                            + " registered, none with a recent heartbeat",
                    "start workers (docket worker, or Docket.worker() in your application)");
        } else {
            StringBuilder evidence = new StringBuilder();
            for (WorkerInfo w : live) {
                evidence.append(evidence.isEmpty() ? "" : "; ").append(w.id()).append(" on ").append(w.host())
                        .append(" queues ").append(w.queues()).append(", ").append(w.running()).append(" running");
            }
            findings.ok("workers", "workers", Findings.count(live.size(), "live worker"), evidence.toString());
        }
        for (WorkerInfo w : workers) {
            String subject = "worker " + w.id();
            if (!w.live()) {
                String cause = "the worker's heartbeats stopped (" + w.heartbeatInterval().toMillis()
                        + " ms interval): it crashed, hangs, or cannot reach the database";
                String evidence = "host " + w.host() + ", pid " + w.pid() + ", last heartbeat at " + w.heartbeatAt()
                        + ", " + Findings.count(w.running(), "job") + " still locked by it";
                String fix = "if the process still runs, take a thread dump (jcmd " + w.pid() + " Thread.print) and "
                        + "restart it; its jobs go back to the queue when their leases expire (the maintenance leader's "
                        + "rescuer); the row is pruned an hour after its last heartbeat";
                if (w.running() > 0) {
                    findings.problem("worker_stopped", subject, cause, evidence, fix);
                } else {
                    findings.warning("worker_stopped", subject, cause, evidence, fix);
                }
                continue;
            }
            if (w.poolSize() != null && w.poolSize() < w.connectionsNeeded()) {
                findings.warning("pool_too_small", subject, "the worker's pool is smaller than its services need: "
                                + "claims, heartbeats and outcomes wait for each other's connections",
                        "pool of " + w.poolSize() + ", the worker needs " + w.connectionsNeeded() + " (queues + 6) "
                                + "plus what its handlers use, for a concurrency of " + w.concurrency(),
                        "raise the pool's maximum size to at least " + w.connectionsNeeded()
                                + " plus the connections its handlers hold at once");
            }
            // At its first heartbeat, written before its services start, no worker is listening yet.
            boolean pastFirstHeartbeat = !w.heartbeatAt().isBefore(w.startedAt().plus(w.heartbeatInterval()));
            if (w.listen() && !w.listening() && pastFirstHeartbeat) {
                findings.warning("listener_down", subject, "the worker's LISTEN connection is down: new jobs are "
                                + "picked up at its next poll instead of at once",
                        "listen on, listener not connected at the last heartbeat (" + w.heartbeatAt() + ")",
                        "check that the listener reaches PostgreSQL directly (a transaction-pooling PgBouncer cannot "
                                + "carry LISTEN: give the worker a listenerDataSource to the database itself)");
            }
            if (!w.stalled().isEmpty()) {
                findings.problem("worker_stalled", subject, "services of the worker wait beyond the stall timeout, "
                                + "typically for a pool connection", "stalled: " + String.join(", ", w.stalled()),
                        "give the pool more connections (see pool_too_small), or find what holds them (handlers that "
                                + "keep connections, a slow database)");
            }
        }
    }
}
