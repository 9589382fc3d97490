package dev.docket.server.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.docket.DocketAdmin;
import dev.docket.QueueStats;
import dev.docket.server.api.ResponseViews;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket stats}: what each queue and kind is doing, cluster-wide. */
@Command(name = "stats", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Prints what each queue and kind is doing across the cluster: jobs by state, the backlog "
                + "(ready, and scheduled jobs already due: what autoscalers read), lag (how long "
                + "the oldest ready job has waited), completed and failed in the last minute, dead-letter size and "
                + "its growth in 24 h, and pickup latency (due to claimed) p50/p99 over the last 5 minutes."})
final class StatsCommand extends DatabaseCommand {

    @Option(names = "--json", order = 1, description = "Print JSON (the shape of GET /api/stats) instead of a table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<QueueStats> stats = withAdmin(DocketAdmin::stats);
        if (json) {
            return println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValueAsString(new ResponseViews.StatsList(stats.stream().map(ResponseViews::stats).toList())));
        }
        if (stats.isEmpty()) {
            return println("No jobs: every queue is empty, and the history and dead-letter tables too.");
        }
        Table table = new Table("QUEUE", "KIND", "SCHEDULED>", "READY>", "RUNNING>", "BACKLOG>", "LAG>", "DONE/MIN>",
                "FAILED/MIN>", "DEAD>", "DEAD 24H>", "PICKUP P50>", "P99>");
        for (QueueStats s : stats) {
            table.row(s.queue(), s.kind(), s.scheduled(), s.ready(), s.running(), s.backlog(),
                    seconds(s.oldestReadyAgeSeconds()),
                    s.completedLastMinute(), s.failedLastMinute(), s.dead(), s.deadLast24h(),
                    millis(s.pickupP50Millis()), millis(s.pickupP99Millis()));
        }
        return print(table::print);
    }

    static String seconds(double s) {
        if (s <= 0) {
            return "0s";
        }
        if (s < 10) {
            return String.format(Locale.ROOT, "%.1fs", s);
        }
        if (s < 120) {
            return String.format(Locale.ROOT, "%.0fs", s);
        }
        if (s < 7200) {
            return String.format(Locale.ROOT, "%.0fm", s / 60);
        }
        return String.format(Locale.ROOT, "%.1fh", s / 3600);
    }

    static String millis(Double ms) {
        if (ms == null) {
            return "-";
        }
        return ms < 1000 ? String.format(Locale.ROOT, "%.0fms", ms) : seconds(ms / 1000);
    }
}
