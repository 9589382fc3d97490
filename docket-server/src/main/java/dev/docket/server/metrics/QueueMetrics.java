package dev.docket.server.metrics;

import dev.docket.DocketAdmin;
import dev.docket.QueueStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queue gauges for Prometheus, refreshed from {@link DocketAdmin#stats()} on a timer (never per
 * scrape, so scrapes stay cheap and cannot pile queries onto the database). Labels are queue and
 * kind only: never anything from a payload.
 */
public final class QueueMetrics implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(QueueMetrics.class);

    private final DocketAdmin admin;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicReference<List<QueueStats>> latest = new AtomicReference<>(List.of());
    private final List<Gauge> gauges = new ArrayList<>();
    private final List<Consumer<List<QueueStats>>> listeners = new CopyOnWriteArrayList<>();
    private final Thread refresher;
    private volatile boolean running = true;

    private record Gauge(MultiGauge gauge, ToDoubleFunction<QueueStats> value, String state) {
    }

    public QueueMetrics(DocketAdmin admin, Duration interval) {
        this.admin = admin;
        jobsGauge("scheduled", QueueStats::scheduled);
        jobsGauge("ready", QueueStats::ready);
        jobsGauge("running", QueueStats::running);
        gauge("docket.queue.lag", "Seconds the oldest ready job has been due", "seconds", QueueStats::oldestReadyAgeSeconds);
        gauge("docket.completed.per.minute", "Jobs completed in the last minute", null, QueueStats::completedLastMinute);
        gauge("docket.failed.per.minute", "Attempts failed in the last minute", null, QueueStats::failedLastMinute);
        gauge("docket.dead.jobs", "Jobs in the dead-letter table", null, QueueStats::dead);
        gauge("docket.dead.jobs.last.24h", "Jobs that died in the last 24 hours", null, QueueStats::deadLast24h);
        gauge("docket.pickup.latency.p50", "Median due-to-claimed time, last 5 minutes", "seconds",
                s -> s.pickupP50Millis() == null ? Double.NaN : s.pickupP50Millis() / 1000);
        gauge("docket.pickup.latency.p99", "99th percentile due-to-claimed time, last 5 minutes", "seconds",
                s -> s.pickupP99Millis() == null ? Double.NaN : s.pickupP99Millis() / 1000);
        this.refresher = Thread.ofPlatform().daemon().name("docket-metrics").start(() -> refreshLoop(interval));
    }

    private void jobsGauge(String state, ToDoubleFunction<QueueStats> value) {
        MultiGauge g = MultiGauge.builder("docket.jobs").description("Live jobs by state").register(registry);
        gauges.add(new Gauge(g, value, state));
    }

    private void gauge(String name, String description, String unit, ToDoubleFunction<QueueStats> value) {
        MultiGauge.Builder b = MultiGauge.builder(name).description(description);
        if (unit != null) {
            b.baseUnit(unit);
        }
        gauges.add(new Gauge(b.register(registry), value, null));
    }

    /** Recomputes the gauges now. */
    public void refresh() {
        List<QueueStats> stats = admin.stats();
        latest.set(stats);
        for (Gauge g : gauges) {
            List<MultiGauge.Row<?>> rows = new ArrayList<>();
            for (QueueStats s : stats) {
                Tags tags = Tags.of("queue", s.queue(), "kind", s.kind());
                if (g.state() != null) {
                    tags = tags.and("state", g.state());
                }
                rows.add(MultiGauge.Row.of(tags, g.value().applyAsDouble(s)));
            }
            g.gauge().register(rows, true);
        }
        for (Consumer<List<QueueStats>> listener : listeners) {
            listener.accept(stats);
        }
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

    /** The Prometheus text exposition. */
    public String scrape() {
        return registry.scrape();
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
        registry.close();
    }
}
