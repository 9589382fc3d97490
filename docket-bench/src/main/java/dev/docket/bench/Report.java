package dev.docket.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A run's results as Markdown (printed and written), JSON and an SVG chart, with Docket's ratios to each peer. */
final class Report {

    private final List<Bench.Row> rows;
    private final Map<String, String> settings;
    private final BenchOptions options;

    Report(List<Bench.Row> rows, Map<String, String> settings, BenchOptions options) {
        this.rows = rows;
        this.settings = settings;
        this.options = options;
    }

    void write() throws Exception {
        Files.createDirectories(options.out());
        String md = markdown();
        System.out.println();
        System.out.println(md);
        Files.writeString(options.out().resolve("results.md"), md);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", settings);
        List<Map<String, Object>> list = new ArrayList<>();
        for (Bench.Row r : rows) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("scenario", r.scenario());
            m.put("system", r.system());
            m.put("config", r.config());
            m.put("metric", r.metric());
            m.put("unit", r.unit());
            m.put("values", r.values());
            if (!r.values().isEmpty()) {
                m.put("median", r.median());
                m.put("min", r.min());
                m.put("max", r.max());
            }
            list.add(m);
        }
        json.put("results", list);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(options.out().resolve("results.json").toFile(), json);
        Files.writeString(options.out().resolve("chart.svg"), Chart.svg(rows, settings));
        Bench.log("wrote " + options.out().resolve("results.md") + ", results.json, chart.svg");
    }

    String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("## Settings\n\n");
        settings.forEach((k, v) -> sb.append("- ").append(k).append(": ").append(v).append('\n'));
        sb.append("\n## Results (median of ").append(options.reps()).append(", min–max)\n\n");
        sb.append("| scenario | system | config | metric | median | min–max |\n");
        sb.append("|---|---|---|---|---:|---:|\n");
        for (Bench.Row r : rows) {
            if (r.values().isEmpty()) {
                sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | – | – |%n", r.scenario(), r.system(),
                        r.config(), r.metric().replace('|', '/')));
            } else {
                sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s–%s |%n", r.scenario(), r.system(),
                        r.config(), r.metric(), fmt(r.median()), fmt(r.min()), fmt(r.max())));
            }
        }
        sb.append(ratios());
        return sb.toString();
    }

    /** Docket's best figure over the best of each other system, per scenario and metric. */
    private String ratios() {
        StringBuilder sb = new StringBuilder("\n## Ratios (Docket's best configuration / each system's best; for jobs/s above 1 is Docket ahead, for ms below 1 is)\n\n");
        sb.append("| scenario | metric | vs | ratio |\n|---|---|---|---:|\n");
        boolean any = false;
        for (String metric : List.of("enqueue jobs/s|bulk", "enqueue jobs/s|single", "drain jobs/s|drain",
                "pickup p50 ms|pickup", "pickup p99 ms|pickup")) {
            String[] mk = metric.split("\\|");
            boolean lowerBetter = mk[0].endsWith("ms");
            Double docket = best("docket", mk[1], mk[0], lowerBetter);
            if (docket == null) {
                continue;
            }
            for (String other : options.systems()) {
                Double v = other.equals("docket") ? null : best(other, mk[1], mk[0], lowerBetter);
                if (v != null && v > 0) {
                    any = true;
                    sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %.3g× |%n", mk[1], mk[0], other, docket / v));
                }
            }
        }
        return any ? sb.toString() : "";
    }

    private Double best(String system, String scenario, String metric, boolean lowerBetter) {
        Double best = null;
        for (Bench.Row r : rows) {
            if (r.system().equals(system) && r.scenario().equals(scenario) && r.metric().equals(metric)
                    && !r.values().isEmpty()) {
                double m = r.median();
                if (best == null || (lowerBetter ? m < best : m > best)) {
                    best = m;
                }
            }
        }
        return best;
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
