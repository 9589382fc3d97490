package dev.docket;

import java.util.List;
import java.util.Map;

/**
 * A worker's health: whether its services are doing their work. A service that failed
 * {@link #FAILURE_THRESHOLD} rounds in a row (database unreachable, pool exhausted) makes the
 * worker unhealthy, and so does one stalled: waiting longer than 5 s in one round, typically for a
 * connection from a pool that has none free. Each service keeps retrying with backoff and recovers
 * by itself.
 *
 * @param healthy         no service has failed {@link #FAILURE_THRESHOLD} or more rounds in a row, and none is stalled
 * @param workerId        the worker's id
 * @param leader          whether it is the cluster's maintenance leader now
 * @param listening       whether its notification listener is connected (false with notifications off)
 * @param inFlight        jobs it holds whose outcome is not written yet
 * @param failingServices services whose last round failed, with their failures in a row
 * @param lastErrors      for each failing service, its last failure: when, and the exception's {@code toString()}
 *                        followed by its causes and SQLSTATEs, so that a pool's timeout carries the database's
 *                        reason (e.g. {@code 2026-11-26T10:00:00Z java.sql.SQLTransientConnectionException: ...;
 *                        caused by org.postgresql.util.PSQLException: FATAL: too many connections for role "app"
 *                        [SQLSTATE 53300]}); marked as a previous round's when the round in progress is stalled;
 *                        never a payload
 * @param stalledServices services (by thread name, e.g. {@code docket-producer-default}) whose round in
 *                        progress has been waiting for longer than 5 s; empty when none
 */
public record WorkerHealth(boolean healthy, String workerId, boolean leader, boolean listening, int inFlight,
                           Map<String, Integer> failingServices, Map<String, String> lastErrors,
                           List<String> stalledServices) {

    /** Rounds in a row a service may fail before the worker is reported unhealthy. */
    public static final int FAILURE_THRESHOLD = 3;

    public WorkerHealth {
        failingServices = Map.copyOf(failingServices);
        lastErrors = Map.copyOf(lastErrors);
        stalledServices = List.copyOf(stalledServices);
    }
}
