package dev.docket;

import java.time.Duration;
import java.time.Instant;

/**
 * A service-level objective stored in the database ({@link DocketAdmin#setQueueLagSlo},
 * {@link DocketAdmin#setKindPickupSlo}): doctor compares the measured figure with it, and the server
 * exports it as the gauge {@code docket_queue_lag_slo_seconds{queue}} or
 * {@code docket_kind_pickup_p99_slo_seconds{kind}} for alert rules.
 *
 * @param target    what is measured
 * @param name      the queue ({@link Target#QUEUE_LAG}) or the kind ({@link Target#KIND_PICKUP_P99})
 * @param objective the most the figure may be
 * @param updatedAt when it was last set
 */
public record Slo(Target target, String name, Duration objective, Instant updatedAt) {

    /** The two figures an objective can be set for. */
    public enum Target {
        /** A queue's lag: how long its oldest ready job has been due. */
        QUEUE_LAG,
        /** A kind's pickup p99: due to claimed, first attempts completed in the last 5 minutes. */
        KIND_PICKUP_P99
    }

    /** The objective in seconds, as the gauges export it. */
    public double objectiveSeconds() {
        return objective.toNanos() / 1e9;
    }
}
