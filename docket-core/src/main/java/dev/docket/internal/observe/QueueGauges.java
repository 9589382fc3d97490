package dev.docket.internal.observe;

import dev.docket.internal.db.Database;
import dev.docket.internal.db.StatsQueries;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.Lifecycle;
import dev.docket.internal.service.PeriodicService;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gauges read from the database, refreshed on a timer (never per scrape, so scrapes stay cheap
 * and cannot pile queries onto the database): live jobs by queue, kind and state, each queue and
 * kind's lag (seconds its oldest ready job has been due), each queue's backlog (jobs a worker could
 * claim now: ready, and scheduled ones already due; what autoscalers read), and the jobs table's
 * vacuum debt. Kinds beyond the label limit are summed into {@code other} (their lag is the
 * largest). A queue or kind that no longer has live jobs reads 0.
 */
public final class QueueGauges extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(QueueGauges.class);
    private static final String UNDEFINED_TABLE = "42P01";

    private final StatsQueries stats;
    private final KindLabels kinds;
    private final GaugeTable jobs;
    private final GaugeTable lag;
    private final GaugeTable backlog;
    private volatile double deadTuples = Double.NaN;
    private volatile double vacuumAgeSeconds = Double.NaN;

    private QueueGauges(MeterRegistry registry, Database store, KindLabels kinds, Duration interval) {
        super("docket-queue-gauges", interval, new Backoff(interval, interval.multipliedBy(4)), log);
        this.stats = store.stats();
        this.kinds = kinds;
        this.jobs = new GaugeTable(registry, "docket.jobs", "Live jobs by queue, kind and state", null, 0);
        this.lag = new GaugeTable(registry, "docket.queue.lag",
                "Seconds the oldest ready job of the queue and kind has been due", "seconds", 0);
        this.backlog = new GaugeTable(registry, "docket.queue.backlog",
                "Jobs of the queue a worker could claim now: ready, and scheduled ones already due", null, 0);
        Gauge.builder("docket.jobs.table.dead.tuples", this, g -> g.deadTuples)
                .description("Dead row versions in the jobs table (vacuum debt)").register(registry);
        Gauge.builder("docket.jobs.table.vacuum.age", this, g -> g.vacuumAgeSeconds).baseUnit("seconds")
                .description("Seconds since the jobs table was last vacuumed (NaN: never)").register(registry);
    }

    /** The gauges in {@code registry} (a Micrometer {@code MeterRegistry}), refreshed every {@code interval} once started. */
    public static Lifecycle of(Object registry, Database store, KindLabels kinds, Duration interval) {
        return new QueueGauges((MeterRegistry) registry, store, kinds, interval);
    }

    @Override
    public void runOnce() throws SQLException {
        List<StatsQueries.LiveCounts> live;
        try {
            live = stats.live();
        } catch (SQLException e) {
            // A Docket is often built before migrate() runs (the demo, the Spring starter, tests): until the
            // tables exist there is nothing to read, which is not a failure worth a warning with a trace.
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                return;
            }
            throw e;
        }
        Map<List<String>, double[]> byLabels = new LinkedHashMap<>();
        Map<Tags, Double> backlogs = new HashMap<>();
        for (StatsQueries.LiveCounts c : live) {
            backlogs.merge(Tags.of("queue", c.queue()), (double) (c.ready() + c.overdue()), Double::sum);
            double[] f = byLabels.computeIfAbsent(List.of(c.queue(), kinds.label(c.kind())), k -> new double[4]);
            f[0] += c.scheduled();
            f[1] += c.ready();
            f[2] += c.running();
            f[3] = Math.max(f[3], c.lagSeconds());
        }
        Map<Tags, Double> jobCounts = new HashMap<>();
        Map<Tags, Double> lags = new HashMap<>();
        byLabels.forEach((labels, f) -> {
            Tags tags = Tags.of("queue", labels.get(0), "kind", labels.get(1));
            jobCounts.put(tags.and("state", "scheduled"), f[0]);
            jobCounts.put(tags.and("state", "ready"), f[1]);
            jobCounts.put(tags.and("state", "running"), f[2]);
            lags.put(tags, f[3]);
        });
        jobs.update(jobCounts);
        lag.update(lags);
        backlog.update(backlogs);
        StatsQueries.VacuumDebt debt = stats.jobsTableVacuum();
        deadTuples = debt.deadTuples();
        vacuumAgeSeconds = debt.vacuumAgeSeconds() == null ? Double.NaN : debt.vacuumAgeSeconds();
    }
}
