package dev.docket.internal.observe;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One gauge name with a row per tag set, updated in place. Each row's gauge is registered once and
 * then only its value changes; a row missing from an update reads {@code absent} (0 for a count)
 * rather than being removed. Removing and re-registering rows, as {@code MultiGauge} does, can make
 * a concurrent Prometheus scrape see a row twice and fail whole (micrometer issue 6851).
 */
final class GaugeTable {

    private final MeterRegistry registry;
    private final String name;
    private final String description;
    private final String baseUnit;
    private final double absent;
    private final Map<Tags, Row> rows = new ConcurrentHashMap<>();

    /** One row's value, written by the refresher and read by scrapes. */
    private static final class Row {
        private volatile double value;

        Row(double value) {
            this.value = value;
        }
    }

    GaugeTable(MeterRegistry registry, String name, String description, String baseUnit, double absent) {
        this.registry = registry;
        this.name = name;
        this.description = description;
        this.baseUnit = baseUnit;
        this.absent = absent;
    }

    /** Sets every row to its value in {@code values}, and the rows it lacks to the absent value. */
    void update(Map<Tags, Double> values) {
        values.forEach((tags, value) -> rows.computeIfAbsent(tags, this::register).value = value);
        rows.forEach((tags, row) -> {
            if (!values.containsKey(tags)) {
                row.value = absent;
            }
        });
    }

    private Row register(Tags tags) {
        Row row = new Row(absent);
        Gauge.builder(name, row, r -> r.value).tags(tags).description(description).baseUnit(baseUnit).register(registry);
        return row;
    }
}
