package dev.docket.server.cli;

import dev.docket.DoctorOptions;
import dev.docket.DoctorReport;
import dev.docket.DoctorReport.Finding;
import dev.docket.DoctorReport.Severity;
import dev.docket.WorkerInfo;
import dev.docket.server.api.OperationsViews;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket doctor}: the runbook as checks, each finding with its cause, evidence and fix. */
@Command(name = "doctor", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Checks the database and the queue: vacuum debt, who holds the xmin horizon back (long or "
                + "idle-in-transaction sessions, replication slots, prepared transactions, standbys), the jobs table's "
                + "settings against the migrations', queue lag and pickup p99 against their SLOs, dead-letter growth, "
                + "paused queues with a backlog, kinds no live worker serves, history partitions, the maintenance "
                + "leader, and the workers (stopped heartbeats, pools too small, listeners down).",
                "Each finding says the cause, the evidence and the fix. Read-only. Run it as a role with pg_monitor, "
                        + "or other roles' sessions stay invisible to it."},
        footerHeading = "%nExit status:%n",
        footer = {"  0  healthy",
                "  1  warnings, no problems",
                "  2  problems (or bad input: an unknown option, a malformed value)",
                "  3  the checks could not run: the database is unreachable or refused the connection, or the schema",
                "     is missing or not current (a monitor that pages on 2 should page on 3 too)"})
final class DoctorCommand extends DatabaseCommand {

    /** The exit status when the checks could not run at all (no connection, no current schema). */
    static final int CANNOT_CHECK = 3;

    @Option(names = "--json", order = 1, description = "Print JSON (the shape of GET /api/doctor) instead of text.")
    boolean json;

    @Option(names = "--long-transaction", paramLabel = "DURATION", order = 2, converter = Converters.DurationConverter.class,
            description = "Report transactions holding the xmin horizon longer than this (default: 5m, at most 1d).")
    Duration longTransaction;

    @Option(names = "--history-retention", paramLabel = "DURATION", order = 3, converter = Converters.DurationConverter.class,
            description = "The history retention your maintenance leader applies, for the partitions check "
                    + "(default: 7d, Docket's default).")
    Duration historyRetention;

    @Override
    public Integer call() throws Exception {
        DoctorOptions options = options();
        DoctorReport report;
        try {
            report = withAdmin(admin -> admin.doctor(options));
        } catch (RuntimeException e) {
            ErrorMessages.Described d = ErrorMessages.describe(e);
            if (d.exitCode() == picocli.CommandLine.ExitCode.USAGE) {
                throw e;
            }
            throw CommandFailure.withStatus(CANNOT_CHECK, d.message());
        }
        if (json) {
            println(JobCommand.JSON.writeValueAsString(OperationsViews.doctor(report)));
        } else {
            print(out -> printReport(out, report));
        }
        return report.exitCode();
    }

    private DoctorOptions options() {
        DoctorOptions options = DoctorOptions.defaults();
        if (longTransaction != null) {
            if (longTransaction.compareTo(Duration.ofDays(1)) > 0) {
                throw CommandFailure.usage("--long-transaction must be at most 1d, was " + Converters.format(longTransaction));
            }
            options = options.withLongTransaction(longTransaction);
        }
        if (historyRetention != null) {
            options = options.withHistoryRetention(historyRetention);
        }
        return options;
    }

    private static String plural(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private void printReport(PrintWriter out, DoctorReport report) {
        long problems = report.findings().stream().filter(f -> f.severity() == Severity.PROBLEM).count();
        long warnings = report.findings().stream().filter(f -> f.severity() == Severity.WARNING).count();
        out.println("docket doctor: " + (problems + warnings == 0 ? "healthy" : plural(problems, "problem") + ", "
                + plural(warnings, "warning")) + " (schema " + database.schema + ", " + report.checkedAt() + ")");
        for (Finding f : report.problems()) {
            out.println();
            out.println(f.severity() + "  " + f.check() + "  " + f.subject());
            out.println("  cause:    " + f.cause());
            out.println("  evidence: " + f.evidence());
            out.println("  fix:      " + f.fix());
        }
        List<Finding> passed = report.findings().stream().filter(f -> f.severity() == Severity.OK).toList();
        if (!passed.isEmpty()) {
            out.println();
            Table table = new Table("OK", "SUBJECT", "FINDING");
            passed.forEach(f -> table.row(f.check(), f.subject(), f.cause() + (f.evidence().isEmpty() ? ""
                    : " (" + f.evidence() + ")")));
            table.print(out);
        }
        if (!report.workers().isEmpty()) {
            out.println();
            Table table = new Table("WORKER", "HOST", "PID>", "QUEUES", "RUNNING>", "LAST HEARTBEAT", "LIVE");
            for (WorkerInfo w : report.workers()) {
                table.row(w.id(), w.host(), w.pid(), w.queues(), w.running(), w.heartbeatAt(),
                        w.live() ? "yes" : "no");
            }
            table.print(out);
        }
        out.println();
        out.println("Exit status " + report.exitCode() + " (" + report.status().name().toLowerCase(Locale.ROOT) + ").");
    }
}
