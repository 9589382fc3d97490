package dev.docket.server.cli;

import dev.docket.DocketAdmin;
import dev.docket.WorkerInfo;
import dev.docket.server.api.OperationsViews;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket workers}: each registered worker's line, from its heartbeat row. */
@Command(name = "workers", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Lists the workers registered in the database, oldest first, each with its host, pid, queues "
                + "and concurrency, the handlers it runs now, the attempts it finished (and failed) in the last minute, "
                + "and how long ago its last heartbeat was (by the database clock): a slow worker runs handlers but "
                + "finishes few, an idle one runs none. The figures are what each worker wrote at its last heartbeat "
                + "(every lease / 3, 10 s by default); nothing is scraped. Workers whose heartbeats stopped are listed "
                + "for an hour, LIVE no."})
final class WorkersCommand extends DatabaseCommand {

    @Option(names = "--json", order = 1, description = "Print JSON (the shape of GET /api/workers) instead of a table.")
    boolean json;

    @Option(names = "--live", order = 2, description = "Only the live workers (a heartbeat within three intervals).")
    boolean liveOnly;

    @Override
    public Integer call() throws Exception {
        List<WorkerInfo> workers = withAdmin(DocketAdmin::workers).stream().filter(w -> !liveOnly || w.live()).toList();
        if (json) {
            return println(JobCommand.JSON.writeValueAsString(
                    new OperationsViews.Workers(workers.stream().map(OperationsViews::worker).toList())));
        }
        if (workers.isEmpty()) {
            return println(liveOnly ? "No live worker." : "No worker is registered.");
        }
        Table table = new Table("WORKER", "HOST", "PID>", "QUEUES", "RUNNING>", "DONE/MIN>", "FAILED/MIN>",
                "LAST HEARTBEAT>", "LIVE");
        for (WorkerInfo w : workers) {
            String heartbeat = StatsCommand.seconds(w.heartbeatAge().toMillis() / 1000.0) + " ago";
            table.row(w.id(), w.host(), w.pid(), queues(w), w.handlersRunning() + "/" + w.concurrency(),
                    w.finishedLastMinute(), w.failedLastMinute(), heartbeat, w.live() ? "yes" : "no");
        }
        return print(table::print);
    }

    private static String queues(WorkerInfo w) {
        StringBuilder b = new StringBuilder();
        w.queues().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e ->
                b.append(b.isEmpty() ? "" : ",").append(e.getKey()).append('=').append(e.getValue()));
        return b.toString();
    }
}
