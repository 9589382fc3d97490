package dev.docket.internal.heartbeat;

import dev.docket.internal.db.Fence;
import dev.docket.internal.db.Database;
import dev.docket.internal.executor.InFlight;
import dev.docket.internal.executor.RunningJob;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Extends the leases of all jobs this worker holds, in one fenced statement per round. A job the
 * statement no longer matches was taken from this worker (its lease expired and it was rescued,
 * or it was cancelled): its handler is interrupted and its outcome will be discarded.
 */
public final class Heartbeater extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(Heartbeater.class);

    private final Database store;
    private final InFlight inFlight;
    private final String workerId;
    private final Duration lease;
    private final Function<String, Duration> kindLease;

    /** {@code kindLease} gives a kind's own lease, or null for the worker's {@code lease}. */
    public Heartbeater(Database store, InFlight inFlight, String workerId, Duration lease,
                       Function<String, Duration> kindLease, Duration interval) {
        // No longer wait than the interval: a heartbeat that waits longer lets leases lapse.
        super("docket-heartbeat-" + workerId, interval, Backoff.keepingCadence(interval), log);
        this.store = store;
        this.inFlight = inFlight;
        this.workerId = workerId;
        this.lease = lease;
        this.kindLease = kindLease;
    }

    @Override
    public void runOnce() throws SQLException {
        List<RunningJob> jobs = inFlight.all();
        if (jobs.isEmpty()) {
            return;
        }
        List<Fence> fences = jobs.stream().map(RunningJob::fence).toList();
        List<Duration> leases = jobs.stream().map(j -> {
            Duration own = kindLease.apply(j.job().kind());
            return own != null ? own : lease;
        }).toList();
        Set<Fence> held = store.outcomes().heartbeatMany(workerId, fences, leases);
        for (RunningJob job : jobs) {
            if (held.contains(job.fence())) {
                continue;
            }
            if (job.isHandlerRunning()) {
                log.warn("docket: job {} attempt {} ({}): lease lost; interrupting its handler",
                        job.fence().id(), job.fence().attempt(), job.job().kind());
                job.markLost();
            } else if (job.isWaitingToStart()) {
                log.info("docket: job {} attempt {} ({}): lease lost (cancelled or rescued) before it started; "
                        + "it will not run here", job.fence().id(), job.fence().attempt(), job.job().kind());
                job.markLost();
            }
        }
    }
}
