package dev.docket.internal.service;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a service that waits for ever from a quiet one. A round that has not ended after
 * {@code stallAfter} is stalled: typically it waits for a connection from a pool that has none
 * free (and a pool may make it wait for ever, or for its own timeout, 30 s in HikariCP), or for a
 * statement the database has not answered yet. Each stalled round is logged once, as a warning that says what to
 * check; {@link #stalled()} lists the services stalled now, for the worker's health.
 */
public final class StallWatch extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(StallWatch.class);

    private final List<Service> services;
    private final long stallAfterNanos;
    private final String advice;
    private final Set<Service> reported = new HashSet<>();

    /**
     * @param advice appended to the warning, e.g. how many connections the pool needs
     */
    public StallWatch(String name, List<? extends Service> services, Duration stallAfter, String advice) {
        super(name, stallAfter.dividedBy(5), Backoff.keepingCadence(stallAfter.dividedBy(5)), log);
        this.services = List.copyOf(services);
        this.stallAfterNanos = stallAfter.toNanos();
        this.advice = advice;
    }

    /** The names of the services whose round in progress has run longer than the stall threshold. */
    public List<String> stalled() {
        return services.stream().filter(this::isStalled).map(Service::name).toList();
    }

    private boolean isStalled(Service s) {
        return s.roundNanos() > stallAfterNanos;
    }

    @Override
    protected void runOnce() {
        for (Service s : services) {
            if (!isStalled(s)) {
                reported.remove(s);
            } else if (reported.add(s)) {
                log.warn("docket: {} has been waiting {} s for one round to end: the pool may have no free "
                        + "connection (all in use, or the database refusing new ones: the pool's timeout then ends the "
                        + "round with the database's reason), or a statement may be waiting on the database; {}",
                        s.name(), TimeUnit.NANOSECONDS.toSeconds(s.roundNanos()), advice);
            }
        }
    }
}
