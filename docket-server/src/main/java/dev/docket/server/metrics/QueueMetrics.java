package dev.docket.server.metrics;

import dev.docket.Docket;
import dev.docket.DocketAdmin;
import dev.docket.OutcomeTotals;
import dev.docket.QueueStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's Prometheus registry: the library's meters (when the Docket was built with this
 * registry, see {@link #registryFor}), JVM and process metrics, and queue gauges refreshed from
 * {@link DocketAdmin#stats()} on a timer (never per scrape, so scrapes stay cheap and cannot pile
 * queries onto the database). Labels are queue and kind only: never anything from a payload.
 *
 * <p>{@code docket_jobs}, {@code docket_queue_lag_seconds} and {@code docket_queue_backlog} come from
 * the library when the Docket has this registry; for a Docket without one the server computes them
 * itself. The cluster's counters and worker gauges ({@link ClusterMetrics}) are the server's alone,
 * and the per-minute figures ({@code docket_completed_per_minute}, {@code docket_failed_per_minute},
 * the dashboard's) are rates of those counters ({@link #withClusterRates}). Every {@code kind} label is
 * the Docket's ({@link Docket#metricsKindLabel}): bounded, the rest reported as {@code other}.
 */
public final class QueueMetrics implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QueueMetrics.class);

    private final DocketAdmin admin;
    private final UnaryOperator<String> kindLabel;
    private final PrometheusMeterRegistry registry;
    /** Whether this registry is the Docket's, which this server then does not close. */
    private final boolean shared;
    private final JvmMetrics jvmMetrics;
    private final AtomicReference<List<QueueStats>> latest = new AtomicReference<>(List.of());
    private final List<QueueGauge> gauges = new ArrayList<>();
    private final List<Consumer<List<QueueStats>>> listeners = new CopyOnWriteArrayList<>();
    private final ClusterMetrics cluster;
    private final Throughput throughput = new Throughput(System::nanoTime);
    /** Each queue's backlog, when the library does not report it (a Docket without this registry). */
    private final Map<String, AtomicReference<Double>> backlogs = new ConcurrentHashMap<>();
    private final Thread refresher;
    private final List<QueueMetrics> included = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;

    /**
     * One gauge name, a row per queue and kind label. {@code additive}: kinds sharing a label add up
     * (counts; a row without jobs reads 0), else the largest shows (times; a row without any reads NaN).
     * Each row is registered once and then only its value changes: removing and re-registering rows
     * (as {@code MultiGauge} does) can make a concurrent scrape see a row twice and fail whole
     * (micrometer issue 6851).
     */
    private record QueueGauge(String name, String description, String unit, ToDoubleFunction<QueueStats> value,
                              String state, boolean additive, Map<Tags, AtomicReference<Double>> rows) {

        double absent() {
            return additive ? 0 : Double.NaN;
        }
    }

    /** Serves {@code docket}'s registry when it is a Prometheus one, else a registry of its own. */
    public QueueMetrics(Docket docket, Duration interval) {
        this(docket, interval, true);
    }

    /**
     * {@link #QueueMetrics(Docket, Duration)}, with the JVM and process metrics or without them: one
     * process serving several databases reports its JVM once, in the default database's registry.
     */
    public QueueMetrics(Docket docket, Duration interval, boolean jvm) {
        this.admin = docket.admin();
        this.kindLabel = docket::metricsKindLabel;
        PrometheusMeterRegistry given = docket.meterRegistry().filter(PrometheusMeterRegistry.class::isInstance)
                .map(PrometheusMeterRegistry.class::cast).orElse(null);
        this.shared = given != null;
        this.registry = shared ? given : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.jvmMetrics = jvm ? new JvmMetrics(registry) : null;
        this.cluster = new ClusterMetrics(registry, kindLabel);
        if (!shared) {
            jobsGauge("scheduled", QueueStats::scheduled);
            jobsGauge("ready", QueueStats::ready);
            jobsGauge("running", QueueStats::running);
            gauge("docket.queue.lag", "Seconds the oldest ready job has been due", "seconds", false,
                    QueueStats::oldestReadyAgeSeconds);
        }
        gauge("docket.completed.per.minute", "Jobs completed per minute over the last minute (the cluster counter's rate)",
                null, true, QueueStats::completedLastMinute);
        gauge("docket.failed.per.minute", "Attempts failed per minute over the last minute (the cluster counter's rate)",
                null, true, QueueStats::failedLastMinute);
        gauge("docket.dead.jobs", "Jobs in the dead-letter table", null, true, QueueStats::dead);
        gauge("docket.dead.jobs.last.24h", "Jobs that died in the last 24 hours", null, true, QueueStats::deadLast24h);
        gauge("docket.pickup.latency.p50", "Median due-to-claimed time, last 5 minutes", "seconds", false,
                s -> s.pickupP50Millis() == null ? Double.NaN : s.pickupP50Millis() / 1000);
        gauge("docket.pickup.latency.p99", "99th percentile due-to-claimed time, last 5 minutes", "seconds", false,
                s -> s.pickupP99Millis() == null ? Double.NaN : s.pickupP99Millis() / 1000);
        this.refresher = Thread.ofPlatform().daemon().name("docket-metrics").start(() -> refreshLoop(interval));
    }

    private void jobsGauge(String state, ToDoubleFunction<QueueStats> value) {
        gauges.add(new QueueGauge("docket.jobs", "Live jobs by state", null, value, state, true, new ConcurrentHashMap<>()));
    }

    private void gauge(String name, String description, String unit, boolean additive,
                       ToDoubleFunction<QueueStats> value) {
        gauges.add(new QueueGauge(name, description, unit, value, null, additive, new ConcurrentHashMap<>()));
    }

    private AtomicReference<Double> row(QueueGauge g, Tags tags) {
        AtomicReference<Double> row = new AtomicReference<>(g.absent());
        Gauge.builder(g.name(), row, AtomicReference::get).tags(tags).description(g.description()).baseUnit(g.unit())
                .register(registry);
        return row;
    }

    /** A registry to give {@code Docket.Builder.meterRegistry}, so that this server serves the library's meters. */
    public static PrometheusMeterRegistry registryFor() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /**
     * Recomputes the gauges now, and reads the cluster's counters and workers. Kinds are labelled as the
     * Docket's metrics label them (bounded, then {@code other}). One refresh at a time: the counters
     * are raised to what each read found, and an older read landing after a newer one must not count.
     */
    public synchronized void refresh() {
        List<OutcomeTotals> totals = admin.outcomeTotals();
        throughput.record(totals);
        cluster.update(totals, admin.workers());
        List<QueueStats> stats = withClusterRates(admin.stats());
        latest.set(stats);
        if (!shared) {
            Map<String, Double> byQueue = new HashMap<>();
            stats.forEach(s -> byQueue.merge(s.queue(), (double) s.backlog(), Double::sum));
            byQueue.forEach((queue, n) -> backlogs.computeIfAbsent(queue, this::backlogRow).set(n));
            backlogs.forEach((queue, row) -> {
                if (!byQueue.containsKey(queue)) {
                    row.set(0.0);
                }
            });
        }
        for (QueueGauge g : gauges) {
            Map<Tags, Double> values = new LinkedHashMap<>();
            for (QueueStats s : stats) {
                Tags tags = Tags.of("queue", s.queue(), "kind", kindLabel.apply(s.kind()));
                if (g.state() != null) {
                    tags = tags.and("state", g.state());
                }
                values.merge(tags, g.value().applyAsDouble(s), g.additive() ? Double::sum : QueueMetrics::largest);
            }
            values.forEach((tags, value) -> g.rows().computeIfAbsent(tags, t -> row(g, t)).set(value));
            g.rows().forEach((tags, row) -> {
                if (!values.containsKey(tags)) {
                    row.set(g.absent());
                }
            });
        }
        for (Consumer<List<QueueStats>> listener : listeners) {
            listener.accept(stats);
        }
    }

    private AtomicReference<Double> backlogRow(String queue) {
        AtomicReference<Double> row = new AtomicReference<>(0.0);
        Gauge.builder("docket.queue.backlog", row, AtomicReference::get).tag("queue", queue)
                .description("Jobs of the queue a worker could claim now: ready, and scheduled ones already due")
                .register(registry);
        return row;
    }

    /**
     * {@code stats} with completed jobs and failed attempts per minute taken from the cluster's counters
     * (rates over the last minute of this server's samples) rather than from the history, so that they
     * count jobs whose history is not kept and agree with {@code rate()} of the counters; a kind with
     * outcomes but no row (no live job, no history) gets one, and a kind without outcomes reads 0.
     * Unchanged (the history's figures) until the server has sampled the counters twice, one refresh
     * interval after it started.
     */
    public List<QueueStats> withClusterRates(List<QueueStats> stats) {
        Optional<Map<List<String>, Throughput.Rate>> sampled = throughput.perMinute();
        if (sampled.isEmpty()) {
            return stats;
        }
        Map<List<String>, Throughput.Rate> rates = sampled.get();
        Map<List<String>, QueueStats> rows = new TreeMap<>(Comparator.comparing((List<String> k) -> k.get(0))
                .thenComparing(k -> k.get(1)));
        for (QueueStats s : stats) {
            Throughput.Rate r = rates.getOrDefault(List.of(s.queue(), s.kind()), new Throughput.Rate(0, 0));
            rows.put(List.of(s.queue(), s.kind()), new QueueStats(s.queue(), s.kind(), s.scheduled(), s.ready(),
                    s.running(), s.overdue(), s.oldestReadyAgeSeconds(), Math.round(r.completedPerMinute()),
                    Math.round(r.failedPerMinute()), s.dead(), s.deadLast24h(), s.pickupP50Millis(), s.pickupP99Millis()));
        }
        rates.forEach((key, r) -> {
            long completed = Math.round(r.completedPerMinute());
            long failed = Math.round(r.failedPerMinute());
            if (!rows.containsKey(key) && completed + failed > 0) {
                rows.put(key, new QueueStats(key.get(0), key.get(1), 0, 0, 0, 0, 0, completed, failed, 0, 0, null, null));
            }
        });
        return List.copyOf(rows.values());
    }

    /** The larger of two figures, where NaN means "none". */
    private static double largest(double a, double b) {
        return Double.isNaN(a) ? b : Double.isNaN(b) ? a : Math.max(a, b);
    }

    /** Calls {@code listener} with the statistics of every refresh (on the refresher's thread). */
    public void onRefresh(Consumer<List<QueueStats>> listener) {
        listeners.add(listener);
        List<QueueStats> last = latest.get();
        if (!last.isEmpty()) {
            listener.accept(last);
        }
    }

    /** The statistics of the last refresh. */
    public List<QueueStats> latest() {
        return latest.get();
    }

    /** The registry behind {@code /metrics}, for meters registered beside the queue gauges. */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * The Prometheus text exposition: this registry's, merged with those {@link #include included}
     * (each metric family once, its samples from every registry).
     */
    public String scrape() {
        if (included.isEmpty()) {
            return registry.scrape();
        }
        List<String> all = new ArrayList<>();
        all.add(registry.scrape());
        included.forEach(m -> all.add(m.registry.scrape()));
        return ScrapeMerge.merge(all);
    }

    /**
     * Serves {@code other}'s metrics in this one's {@link #scrape}: another database's, whose registry
     * gives every meter a {@code database} label ({@link #registryFor(String)}).
     */
    public void include(QueueMetrics other) {
        included.add(Objects.requireNonNull(other, "other"));
    }

    /**
     * {@link #registryFor()} whose every meter carries the label {@code database="NAME"}: for a server
     * of several databases, where each database's Docket, gauges and counters get a registry of their
     * own and the scrape merges them.
     */
    public static PrometheusMeterRegistry registryFor(String database) {
        PrometheusMeterRegistry registry = registryFor();
        registry.config().commonTags("database", Objects.requireNonNull(database, "database"));
        return registry;
    }

    public String contentType() {
        return "text/plain; version=0.0.4; charset=utf-8";
    }

    private void refreshLoop(Duration interval) {
        while (running) {
            try {
                refresh();
            } catch (RuntimeException e) {
                log.warn("docket: refreshing queue metrics failed: {}", e.getMessage());
            }
            try {
                Thread.sleep(interval.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        running = false;
        refresher.interrupt();
        if (jvmMetrics != null) {
            jvmMetrics.close();
        }
        if (!shared) {
            registry.close();
        }
    }
}
