package dev.docket.server.metrics;

import dev.docket.DocketAdmin;
import dev.docket.Slo;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;

/**
 * The SLOs stored in the database as gauges, so that alert rules compare a measured figure with its
 * objective without copying it: {@code docket_queue_lag_slo_seconds{queue}} and
 * {@code docket_kind_pickup_p99_slo_seconds{kind}}. Refreshed with the queue gauges ({@link QueueMetrics});
 * an objective cleared in the database disappears at the next refresh.
 */
public final class SloGauges {

    private final DocketAdmin admin;
    private final MultiGauge queueLag;
    private final MultiGauge kindPickup;

    public SloGauges(DocketAdmin admin, MeterRegistry registry) {
        this.admin = admin;
        this.queueLag = MultiGauge.builder("docket.queue.lag.slo").baseUnit("seconds")
                .description("The lag objective of a queue (DocketAdmin.setQueueLagSlo)").register(registry);
        this.kindPickup = MultiGauge.builder("docket.kind.pickup.p99.slo").baseUnit("seconds")
                .description("The pickup p99 objective of a kind (DocketAdmin.setKindPickupSlo)").register(registry);
    }

    /** Reads the objectives and replaces the gauges' rows. */
    public void refresh() {
        List<MultiGauge.Row<?>> lag = new ArrayList<>();
        List<MultiGauge.Row<?>> pickup = new ArrayList<>();
        for (Slo s : admin.slos()) {
            if (s.target() == Slo.Target.QUEUE_LAG) {
                lag.add(MultiGauge.Row.of(Tags.of("queue", s.name()), s.objectiveSeconds()));
            } else {
                pickup.add(MultiGauge.Row.of(Tags.of("kind", s.name()), s.objectiveSeconds()));
            }
        }
        queueLag.register(lag, true);
        kindPickup.register(pickup, true);
    }
}
