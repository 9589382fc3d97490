package dev.docket.server.metrics;

import dev.docket.Docket;
import dev.docket.Slo;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The SLOs stored in the database as gauges, so that alert rules compare a measured figure with its
 * objective without copying it: {@code docket_queue_lag_slo_seconds{queue}} and
 * {@code docket_kind_pickup_p99_slo_seconds{kind}} (the kind labelled as the Docket's metrics label it,
 * bounded). Refreshed with the queue gauges ({@link QueueMetrics}). Like those, rows are updated in
 * place, never removed and registered again (a concurrent scrape could then see a row twice): an
 * objective cleared in the database reads NaN, which compares false in every alert rule.
 */
public final class SloGauges {

    private final Docket docket;
    private final MeterRegistry registry;
    private final Map<String, AtomicReference<Double>> queueLag = new ConcurrentHashMap<>();
    private final Map<String, AtomicReference<Double>> kindPickup = new ConcurrentHashMap<>();

    public SloGauges(Docket docket, MeterRegistry registry) {
        this.docket = docket;
        this.registry = registry;
    }

    /** Reads the objectives and sets the gauges' rows. */
    public void refresh() {
        Map<String, Double> lag = new HashMap<>();
        Map<String, Double> pickup = new HashMap<>();
        for (Slo s : docket.admin().slos()) {
            if (s.target() == Slo.Target.QUEUE_LAG) {
                lag.put(s.name(), s.objectiveSeconds());
            } else {
                // Kinds beyond the label bound share "other": its objective is the loosest of theirs.
                pickup.merge(docket.metricsKindLabel(s.name()), s.objectiveSeconds(), Math::max);
            }
        }
        set(queueLag, lag, "docket.queue.lag.slo", "queue", "The lag objective of a queue (DocketAdmin.setQueueLagSlo)");
        set(kindPickup, pickup, "docket.kind.pickup.p99.slo", "kind",
                "The pickup p99 objective of a kind (DocketAdmin.setKindPickupSlo)");
    }

    private void set(Map<String, AtomicReference<Double>> rows, Map<String, Double> values, String name, String label,
                     String description) {
        values.forEach((key, value) -> rows.computeIfAbsent(key, k -> {
            AtomicReference<Double> row = new AtomicReference<>(Double.NaN);
            Gauge.builder(name, row, AtomicReference::get).tag(label, k).baseUnit("seconds").description(description)
                    .register(registry);
            return row;
        }).set(value));
        rows.forEach((key, row) -> {
            if (!values.containsKey(key)) {
                row.set(Double.NaN);
            }
        });
    }
}
