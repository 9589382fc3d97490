package dev.docket.server.cli;

import dev.docket.DatabasesDoctorReport;
import dev.docket.Docket;
import dev.docket.DocketRouter;
import dev.docket.DoctorOptions;
import dev.docket.DoctorReport.Finding;
import dev.docket.DoctorReport.Severity;
import dev.docket.DoctorReport;
import dev.docket.WorkerInfo;
import dev.docket.server.api.OperationsViews;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
        if (database.several()) {
            return several(options);
        }
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

    /** Each database's checks, then the two across databases; every finding names its database. */
    private int several(DoctorOptions options) throws Exception {
        DatabasesDoctorReport report;
        Map<String, Database> open = null;
        try {
            open = database.openAll(2, b -> { });
            Map<String, Docket> dockets = new LinkedHashMap<>();
            for (Map.Entry<String, Database> e : open.entrySet()) {
                try {
                    e.getValue().requireCurrentSchema();
                } catch (CommandFailure f) {
                    throw CommandFailure.withStatus(CANNOT_CHECK, "database " + e.getKey() + ": " + f.getMessage());
                }
                dockets.put(e.getKey(), e.getValue().docket());
            }
            report = DocketRouter.doctor(dockets, options);
        } catch (CommandFailure e) {
            if (e.exitCode() == picocli.CommandLine.ExitCode.USAGE) {
                throw e;
            }
            throw CommandFailure.withStatus(CANNOT_CHECK, e.getMessage());
        } catch (RuntimeException e) {
            throw CommandFailure.withStatus(CANNOT_CHECK, ErrorMessages.describe(e).message());
        } finally {
            if (open != null) {
                open.values().forEach(Database::close);
            }
        }
        if (json) {
            println(JobCommand.JSON.writeValueAsString(OperationsViews.doctor(report)));
        } else {
            DatabasesDoctorReport shown = report;
            print(out -> printReport(out, shown));
        }
        return report.exitCode();
    }

    private void printReport(PrintWriter out, DatabasesDoctorReport report) {
        List<Map.Entry<String, Finding>> all = report.findings();
        long problems = all.stream().filter(e -> e.getValue().severity() == Severity.PROBLEM).count();
        long warnings = all.stream().filter(e -> e.getValue().severity() == Severity.WARNING).count();
        out.println("docket doctor: " + (problems + warnings == 0 ? "healthy" : plural(problems, "problem") + ", "
                + plural(warnings, "warning")) + " (databases " + String.join(", ", report.byDatabase().keySet())
                + ", schema " + database.schema + ")");
        for (Map.Entry<String, Finding> e : all) {
            Finding f = e.getValue();
            if (f.severity() == Severity.OK) {
                continue;
            }
            out.println();
            out.println(f.severity() + "  " + f.check() + "  " + (e.getKey() == null ? "across databases" : "database "
                    + e.getKey()) + "  " + f.subject());
            out.println("  cause:    " + f.cause());
            out.println("  evidence: " + f.evidence());
            out.println("  fix:      " + f.fix());
        }
        out.println();
        Table table = new Table("OK", "DATABASE", "SUBJECT", "FINDING");
        all.stream().filter(e -> e.getValue().severity() == Severity.OK).forEach(e -> table.row(e.getValue().check(),
                e.getKey() == null ? "(all)" : e.getKey(), e.getValue().subject(), e.getValue().cause()));
        table.print(out);
        Table workers = new Table("DATABASE", "WORKER", "HOST", "QUEUES", "LIVE");
        report.byDatabase().forEach((db, r) -> r.workers().forEach(w -> workers.row(db, w.id(), w.host(), w.queues(),
                w.live() ? "yes" : "no")));
        out.println();
        workers.print(out);
        out.println();
        out.println("Exit status " + report.exitCode() + " (" + report.status().name().toLowerCase(Locale.ROOT) + ").");
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
