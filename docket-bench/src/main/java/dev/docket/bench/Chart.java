package dev.docket.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A hand-written SVG: drain and enqueue jobs/s per system and config, idle pickup p50/p99 per system, and
 * (when measured) the scale-out drain of several worker JVMs.
 */
final class Chart {
    private Chart() {
    }

    private static final Map<String, String> COLORS = Map.of("docket", "#2b6cb0", "raw", "#718096",
            "db-scheduler", "#dd6b20", "jobrunr", "#38a169", "graphile-worker", "#805ad5", "pg-boss", "#d53f8c");

    static String svg(List<Bench.Row> rows, Map<String, String> settings) {
        List<Bench.Row> drain = new ArrayList<>();
        List<Bench.Row> p50 = new ArrayList<>();
        List<Bench.Row> p99 = new ArrayList<>();
        List<Bench.Row> enqueue = new ArrayList<>();
        List<Bench.Row> scaleOut = new ArrayList<>();
        for (Bench.Row r : rows) {
            if (r.values().isEmpty()) {
                continue;
            }
            switch (r.metric()) {
                case "drain jobs/s" -> drain.add(r);
                case "pickup p50 ms" -> p50.add(r);
                case "pickup p99 ms" -> p99.add(r);
                case "enqueue jobs/s" -> enqueue.add(r);
                case "scale-out jobs/s" -> scaleOut.add(r);
                default -> {
                }
            }
        }
        int barH = 22;
        int left = 230;
        int width = 900;
        int plot = width - left - 120;
        StringBuilder sb = new StringBuilder();
        int h1 = 60 + drain.size() * (barH + 6);
        int h2 = 45 + enqueue.size() * (barH + 6);
        int h3 = 50 + p50.size() * (2 * barH + 10);
        int h4 = scaleOut.isEmpty() ? 0 : 45 + scaleOut.size() * (barH + 6);
        int height = h1 + h2 + h3 + h4 + 40;
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"13\">%n", width, height));
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        sb.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Drain: no-op "
                + "jobs/s (median; whisker min–max)</text>%n"));
        sb.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"40\" fill=\"#555\">PostgreSQL %s, synchronous_commit=%s, "
                + "%s CPUs, %s jobs, %s mode</text>%n", esc(settings.get("postgres")), esc(settings.get("synchronous_commit")),
                settings.get("cpus"), settings.get("jobs"), settings.get("mode")));
        int y = throughputBars(sb, 55, barH, left, plot, drain, r -> r.config());
        y += 30;
        sb.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">Enqueue: "
                + "jobs/s, 1,000 per transaction (bulk) and one per transaction (single)</text>%n", y));
        y = throughputBars(sb, y + 15, barH, left, plot, enqueue, r -> r.scenario());
        y += 30;
        sb.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">Idle pickup: "
                + "enqueue commit to handler start, ms, log scale (p50 light, p99 dark)</text>%n", y));
        y += 15;
        Scale latencyScale = logarithmic(p99.stream().mapToDouble(Bench.Row::max).max().orElse(1));
        for (int i = 0; i < p50.size(); i++) {
            Bench.Row a = p50.get(i);
            bar(sb, y, barH, left, plot, a, latencyScale, a.system() + " p50", " ms");
            y += barH + 2;
            if (i < p99.size()) {
                bar(sb, y, barH, left, plot, p99.get(i), latencyScale, a.system() + " p99", " ms");
            }
            y += barH + 8;
        }
        if (!scaleOut.isEmpty()) {
            y += 22;
            sb.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">Scale-out: "
                    + "total drain jobs/s of several worker JVMs on one PostgreSQL</text>%n", y));
            throughputBars(sb, y + 15, barH, left, plot, scaleOut, Bench.Row::config);
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** One jobs/s bar per row on a shared linear scale, labelled with the system and {@code what}; returns the next y. */
    private static int throughputBars(StringBuilder sb, int y, int barH, int left, int plot, List<Bench.Row> rows,
                                      java.util.function.Function<Bench.Row, String> what) {
        Scale scale = linear(rows.stream().mapToDouble(Bench.Row::max).max().orElse(1));
        for (Bench.Row r : rows) {
            bar(sb, y, barH, left, plot, r, scale, r.system() + " " + what.apply(r), " jobs/s");
            y += barH + 6;
        }
        return y;
    }

    /** Where a value falls on a bar's scale, 0 to 1. */
    private interface Scale {
        double at(double value);
    }

    private static Scale linear(double max) {
        return v -> max <= 0 ? 0 : v / max;
    }

    /** Logarithmic from 0.1 (ms) up: pickup latencies span 0.3 ms to 5 s. */
    private static Scale logarithmic(double max) {
        double floor = 0.1;
        double span = Math.log10(Math.max(max, floor * 10) / floor);
        return v -> v <= floor ? 0 : Math.log10(v / floor) / span;
    }

    private static void bar(StringBuilder sb, int y, int h, int left, int plot, Bench.Row r, Scale scale, String label,
                            String unit) {
        String color = COLORS.getOrDefault(r.system(), "#444");
        double w = scale.at(r.median()) * plot;
        double x1 = left + scale.at(r.min()) * plot;
        double x2 = left + scale.at(r.max()) * plot;
        boolean dark = label.endsWith("p99");
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n", left - 8,
                y + h - 6, esc(label)));
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"%s/>%n",
                left, y, Math.max(1, w), h, color, dark ? "" : " fill-opacity=\"0.6\""));
        sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"black\"/>%n",
                x1, x2, y + h / 2, y + h / 2));
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s%s</text>%n", Math.max(x2, left + w) + 6,
                y + h - 6, Report.fmt(r.median()), unit));
    }

    private static String esc(String s) {
        return s == null ? "" : s.replace("&", "&amp;").replace("<", "&lt;");
    }
}
