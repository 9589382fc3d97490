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

    /** Writes results.md, results.json and chart.svg into the output directory, and prints the Markdown if asked. */
    void write(boolean print) throws Exception {
        Files.createDirectories(options.out());
        String md = markdown();
        if (print) {
            System.out.println();
            System.out.println(md);
        }
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
            if (r.stalled()) {
                m.put("stalls", r.stalls());
            }
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
        if (print) {
            Bench.log("wrote " + options.out().resolve("results.md") + ", results.json, chart.svg");
        }
    }

    String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("## Settings\n\n");
        settings.forEach((k, v) -> sb.append("- ").append(k).append(": ").append(v).append('\n'));
        sb.append("\n## Results (median of ").append(options.reps()).append(", min–max, every repetition in order)\n\n");
        sb.append("| scenario | system | config | metric | median | min–max | reps |\n");
        sb.append("|---|---|---|---|---:|---:|---|\n");
        for (Bench.Row r : rows) {
            if (r.values().isEmpty()) {
                sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | – | – | – |%n", r.scenario(), r.system(),
                        r.config(), r.metric().replace('|', '/')));
            } else {
                sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s–%s | %s |%n", r.scenario(), r.system(),
                        r.config(), r.metric(), fmt(r.median()), fmt(r.min()), fmt(r.max()), reps(r)));
            }
        }
        sb.append(stalls());
        sb.append(ratios());
        return sb.toString();
    }

    /** Each repetition's value in order, a stalled drain's marked. */
    private static String reps(Bench.Row r) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < r.values().size(); i++) {
            values.add(fmt(r.values().get(i)) + (r.stalls().get(i).isEmpty() ? "" : " " + STALL_MARK));
        }
        return String.join(" · ", values);
    }

    static final String STALL_MARK = "⚠ stall";

    /** The drains whose longest gap between handler starts was over its threshold ({@link StartGaps}). */
    private String stalls() {
        StringBuilder sb = new StringBuilder("\n## Stalls (" + STALL_MARK + ": jobs ready, no handler start for longer than"
                + " max(100 ms, 5 × the drain's median gap between starts))\n\n");
        boolean any = false;
        for (Bench.Row r : rows) {
            if (!r.metric().equals(Drain.STALL_METRIC)) {
                continue;
            }
            for (int i = 0; i < r.stalls().size(); i++) {
                if (!r.stalls().get(i).isEmpty()) {
                    any = true;
                    sb.append(String.format(Locale.ROOT, "- %s %s [%s] rep %d: %s%n", r.system(), r.scenario(), r.config(),
                            i + 1, r.stalls().get(i)));
                }
            }
        }
        return any ? sb.toString() : "";
    }

    /**
     * Docket's best figure over the best of each other system, per scenario and metric, and for drain also
     * at each concurrency (the best configuration of each system at that concurrency), each best named.
     */
    private String ratios() {
        StringBuilder sb = new StringBuilder("\n## Ratios (Docket's best configuration / each system's best; for jobs/s above 1 is Docket ahead, for ms below 1 is)\n\n");
        sb.append("| scenario | metric | Docket's best | vs | its best | ratio |\n|---|---|---|---|---|---:|\n");
        List<String[]> comparisons = new ArrayList<>();
        for (String metric : List.of("enqueue jobs/s|bulk", "enqueue jobs/s|single", "drain jobs/s|drain",
                "pickup p50 ms|pickup", "pickup p99 ms|pickup")) {
            String[] mk = metric.split("\\|");
            comparisons.add(new String[]{mk[1], mk[0], ""});
        }
        for (int c : options.concurrencies()) {
            comparisons.add(new String[]{"drain", "drain jobs/s", " c=" + c});
        }
        boolean any = false;
        for (String[] cmp : comparisons) {
            boolean lowerBetter = cmp[1].endsWith("ms");
            Bench.Row docket = best("docket", cmp[0], cmp[1], cmp[2], lowerBetter);
            if (docket == null) {
                continue;
            }
            for (String other : options.systems()) {
                Bench.Row v = other.equals("docket") ? null : best(other, cmp[0], cmp[1], cmp[2], lowerBetter);
                if (v != null && v.median() > 0) {
                    any = true;
                    sb.append(String.format(Locale.ROOT, "| %s%s | %s | %s | %s | %s | %.3g× |%n", cmp[0], cmp[2], cmp[1],
                            configOf(docket, cmp[2]), other, configOf(v, cmp[2]), docket.median() / v.median()));
                }
            }
        }
        return (any ? sb.toString() : "") + scaleOut();
    }

    /** Each scale-out figure over the one-JVM figure at the same concurrency. */
    private String scaleOut() {
        StringBuilder sb = new StringBuilder("\n## Scale-out (total jobs/s over one JVM's, same concurrency per JVM)\n\n"
                + "| worker JVMs | jobs/s | × one JVM |\n|---|---:|---:|\n");
        boolean any = false;
        for (Bench.Row r : rows) {
            if (!r.scenario().equals("scaleout") || r.values().isEmpty()) {
                continue;
            }
            String c = r.config().substring(r.config().indexOf(" × "));
            Double one = rows.stream().filter(o -> o.scenario().equals("scaleout") && o.config().equals("1 JVM" + c)
                    && !o.values().isEmpty()).map(Bench.Row::median).findFirst().orElse(null);
            any = true;
            sb.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", r.config(), fmt(r.median()),
                    one == null ? "n/a" : String.format(Locale.ROOT, "%.2f×", r.median() / one)));
        }
        return any ? sb.toString() : "";
    }

    /** The row with the best median of a system's rows for this scenario and metric whose config ends with {@code suffix}. */
    private Bench.Row best(String system, String scenario, String metric, String suffix, boolean lowerBetter) {
        Bench.Row best = null;
        for (Bench.Row r : rows) {
            if (r.system().equals(system) && r.scenario().equals(scenario) && r.metric().equals(metric)
                    && r.config().endsWith(suffix) && !r.values().isEmpty()) {
                double m = r.median();
                if (best == null || (lowerBetter ? m < best.median() : m > best.median())) {
                    best = r;
                }
            }
        }
        return best;
    }

    /** The configuration of a row without the concurrency a ratio's scenario already names. */
    private static String configOf(Bench.Row r, String suffix) {
        return r.config().substring(0, r.config().length() - suffix.length());
    }

    static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
