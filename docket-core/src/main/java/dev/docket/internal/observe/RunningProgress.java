package dev.docket.internal.observe;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The latest fraction each running attempt of one queue and kind reported, for the progress gauges.
 * Holds at most one entry per handler slot of the process: an attempt's entry goes when it ends.
 */
final class RunningProgress {

    private final ConcurrentMap<Long, Double> fractions = new ConcurrentHashMap<>();

    void report(long jobId, double fraction) {
        fractions.put(jobId, fraction);
    }

    void end(long jobId) {
        fractions.remove(jobId);
    }

    /** The least advanced attempt's fraction: the one an operator waits for; NaN when none runs. */
    double lowest() {
        return fractions.values().stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    double count() {
        return fractions.size();
    }
}
