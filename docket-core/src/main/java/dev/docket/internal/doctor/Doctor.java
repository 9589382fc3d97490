package dev.docket.internal.doctor;

import dev.docket.DoctorOptions;
import dev.docket.DoctorReport;
import dev.docket.WorkerInfo;
import dev.docket.internal.db.Database;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The runbook as checks ({@link dev.docket.DocketAdmin#doctor}): each check adds findings with a cause,
 * evidence and a fix. A check that cannot run (a privilege missing, say) becomes a {@code check_failed}
 * warning and the others still run.
 *
 * @param store            the tables it reads
 * @param schema           their schema's name
 * @param historyRetention how long completed jobs are kept, for the partitions overdue for dropping
 */
public record Doctor(Database store, String schema, Duration historyRetention) {

    private interface Check {
        void run() throws SQLException;
    }

    public DoctorReport run(DoctorOptions options) throws SQLException {
        Instant at = store.schema().now();
        List<WorkerInfo> workers = store.workers().list();
        int live = (int) workers.stream().filter(WorkerInfo::live).count();
        Findings findings = new Findings();
        TableChecks tables = new TableChecks(store.doctor(), schema,
                options.historyRetention() != null ? options.historyRetention() : historyRetention);
        QueueChecks queues = new QueueChecks(store.doctor());
        guarded(findings, "vacuum and settings", () -> tables.vacuumAndSettings(findings));
        guarded(findings, "the xmin horizon", () -> new HorizonCheck(store.doctor(), options).run(findings));
        guarded(findings, "queue lag and pauses", () -> queues.lagAndPauses(findings));
        guarded(findings, "pickup latency", () -> queues.pickup(findings));
        guarded(findings, "dead-letter growth", () -> queues.deadGrowth(findings));
        guarded(findings, "unserved kinds", () -> queues.unserved(findings, live));
        guarded(findings, "history partitions", () -> tables.partitions(findings));
        guarded(findings, "maintenance", () -> tables.maintenance(findings));
        new WorkerChecks().run(findings, workers);
        return new DoctorReport(at, findings.sorted(), workers);
    }

    private static void guarded(Findings findings, String what, Check check) {
        try {
            check.run();
        } catch (SQLException e) {
            findings.warning("check_failed", what, "doctor could not check " + what, e.getMessage(),
                    "run doctor as a role with pg_monitor (GRANT pg_monitor TO ...) and read access to the schema");
        }
    }
}
