package dev.docket.internal.doctor;

import dev.docket.DoctorReport.Severity;
import dev.docket.internal.db.DoctorQueries;
import dev.docket.internal.db.DoctorQueries.JobsTable;
import dev.docket.internal.db.DoctorQueries.Maintenance;
import dev.docket.internal.db.DoctorQueries.Partitions;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * The hot table and its neighbours: vacuum debt, storage settings drifted from the migrations, the
 * history's partitions, and the maintenance leader that keeps them.
 */
record TableChecks(DoctorQueries queries, String schema, Duration historyRetention) {

    /**
     * The jobs table's storage options as the migrations set them (V001, V013): a dump and restore without
     * them, or a manual {@code ALTER TABLE ... RESET}, loses them.
     */
    static final Map<String, String> JOBS_OPTIONS = new LinkedHashMap<>();

    static {
        JOBS_OPTIONS.put("fillfactor", "80");
        JOBS_OPTIONS.put("autovacuum_vacuum_scale_factor", "0.02");
        JOBS_OPTIONS.put("autovacuum_analyze_scale_factor", "0.02");
        JOBS_OPTIONS.put("autovacuum_vacuum_cost_delay", "0");
        JOBS_OPTIONS.put("vacuum_truncate", "false");
    }

    /** Dead rows below this never slow a claim measurably (the maintainer's own vacuum trigger). */
    static final long DEAD_ROWS_WARNING = 10_000;
    /** Dead rows from which, when they also outnumber the live ones, claims slow down visibly. */
    static final long DEAD_ROWS_PROBLEM = 100_000;
    /** How long the maintenance leader may leave a due job scheduled before it counts as overdue. */
    static final double OVERDUE_SECONDS = 60;

    private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;

    void vacuumAndSettings(Findings findings) throws SQLException {
        JobsTable t = queries.jobsTable().orElse(null);
        if (t == null) {
            findings.problem("vacuum_debt", schema + ".jobs", "the jobs table does not exist", "schema " + schema,
                    "run `docket migrate`");
            return;
        }
        vacuum(findings, t);
        settings(findings, t);
    }

    private void vacuum(Findings findings, JobsTable t) {
        String table = schema + ".jobs";
        long dead = t.deadRows() == null ? 0 : t.deadRows();
        long live = t.liveRows() == null ? 0 : t.liveRows();
        long trigger = t.vacuumThreshold() + Math.round(0.02 * Math.max(0, t.reltuples()));
        String evidence = Findings.count(dead) + " dead and " + Findings.count(live) + " live rows; last vacuum "
                + (t.sinceVacuumSeconds() == null ? "never" : Findings.duration(t.sinceVacuumSeconds()) + " ago")
                + "; " + Findings.count(t.autovacuumCount()) + " autovacuums since the statistics were reset"
                + "; the claim index is " + Findings.count(t.claimIndexPages(), "page") + " for "
                + Findings.count(t.readyRows(), "ready row")
                + (t.autovacuumOn() ? "" : "; autovacuum is off server-wide");
        if (dead < Math.max(DEAD_ROWS_WARNING, 2 * trigger)) {
            findings.ok("vacuum_debt", table, "vacuum keeps up with the jobs table", evidence);
            return;
        }
        Severity severity = dead >= DEAD_ROWS_PROBLEM && dead > live || !t.autovacuumOn() ? Severity.PROBLEM
                : Severity.WARNING;
        findings.add(severity, "vacuum_debt", table, "dead rows pile up in the jobs table: every claim walks over "
                        + "them in the claim index, so claims get slower until a vacuum removes them", evidence,
                "VACUUM (VERBOSE) " + table + "; if it reports rows that are dead but not yet removable, something "
                        + "holds the xmin horizon back (see xmin_horizon): end that first"
                        + (t.autovacuumOn() ? "" : "; turn autovacuum on (ALTER SYSTEM SET autovacuum = on; "
                        + "SELECT pg_reload_conf();)"));
    }

    private void settings(Findings findings, JobsTable t) {
        Map<String, String> actual = new LinkedHashMap<>();
        for (String option : t.reloptions()) {
            int eq = option.indexOf('=');
            if (eq > 0) {
                actual.put(option.substring(0, eq), option.substring(eq + 1));
            }
        }
        List<String> drift = new ArrayList<>();
        JOBS_OPTIONS.forEach((name, wanted) -> {
            String found = actual.get(name);
            if (found == null || !sameValue(found, wanted)) {
                drift.add(name + " is " + (found == null ? "the server default" : found) + ", the migrations set " + wanted);
            }
        });
        boolean disabled = "false".equalsIgnoreCase(actual.get("autovacuum_enabled"))
                || "off".equalsIgnoreCase(actual.get("autovacuum_enabled"));
        if (disabled) {
            drift.add("autovacuum_enabled is " + actual.get("autovacuum_enabled") + ": autovacuum never visits the table");
        }
        String table = schema + ".jobs";
        if (drift.isEmpty()) {
            findings.ok("settings_drift", table, "the jobs table's storage settings are the migrations' ones",
                    String.join(", ", t.reloptions()));
            return;
        }
        StringBuilder set = new StringBuilder();
        JOBS_OPTIONS.forEach((name, value) -> set.append(set.isEmpty() ? "" : ", ").append(name).append(" = ").append(value));
        findings.add(disabled ? Severity.PROBLEM : Severity.WARNING, "settings_drift", table,
                "the jobs table's storage settings differ from what the migrations set (a dump and restore, or a "
                        + "manual ALTER TABLE, reset them): without them heartbeats stop being HOT updates, "
                        + "autovacuum visits the table far too rarely, and vacuums wait for the table's exclusive "
                        + "lock to truncate it",
                String.join("; ", drift),
                "ALTER TABLE " + table + " SET (" + set + ")" + (disabled ? "; ALTER TABLE " + table
                        + " RESET (autovacuum_enabled)" : "") + ";");
    }

    /** The server keeps an option as it was written: 0.020 is 0.02, and off is false. */
    private static boolean sameValue(String a, String b) {
        Boolean x = bool(a);
        Boolean y = bool(b);
        if (x != null && y != null) {
            return x.equals(y);
        }
        try {
            return Double.parseDouble(a) == Double.parseDouble(b);
        } catch (NumberFormatException e) {
            return a.equals(b);
        }
    }

    private static Boolean bool(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "true", "on", "yes", "1" -> true;
            case "false", "off", "no", "0" -> false;
            default -> null;
        };
    }

    void partitions(Findings findings) throws SQLException {
        Partitions p = queries.partitions();
        LocalDate today = LocalDate.parse(p.today());
        TreeSet<LocalDate> days = new TreeSet<>();
        for (String name : p.names()) {
            days.add(LocalDate.parse(name.substring("job_history_p".length()), DAY));
        }
        String subject = schema + ".job_history";
        String create = "SELECT " + schema + ".create_history_partitions(3);";
        String evidence = days.isEmpty() ? "no day partitions" : days.size() + " day partitions, " + days.first()
                + " to " + days.last() + " (today is " + today + " UTC)";
        boolean fine = true;
        if (!days.contains(today)) {
            fine = false;
            findings.problem("history_partitions", subject, "today's history partition is missing: completed jobs go "
                    + "to the default partition, which retention never drops", evidence, create
                    + " and check that a maintenance leader runs (see maintenance)");
        } else if (!days.contains(today.plusDays(1))) {
            fine = false;
            findings.warning("history_partitions", subject, "tomorrow's history partition is missing: the maintenance "
                    + "leader creates three days ahead every 10 minutes", evidence, create);
        }
        if (p.defaultHasRows()) {
            fine = false;
            findings.warning("history_partitions", subject, "completed jobs landed in the default partition (their "
                            + "day's partition was missing), which retention does not drop", "rows in "
                            + schema + ".job_history_default",
                    "a day's partition cannot be created while the default partition holds rows of that day; move "
                            + "them through it in one transaction: BEGIN; CREATE TEMP TABLE moved AS SELECT * FROM "
                            + schema + ".job_history_default; DELETE FROM " + schema + ".job_history_default; " + create
                            + " INSERT INTO " + schema + ".job_history SELECT * FROM moved; COMMIT;");
        }
        Duration retention = historyRetention.isZero() ? Duration.ofDays(1) : historyRetention;
        LocalDate dropBefore = today.minusDays(retention.toDays() + 1);
        if (!days.isEmpty() && days.first().isBefore(dropBefore)) {
            fine = false;
            long overdue = days.headSet(dropBefore).size();
            findings.warning("history_partitions", subject, overdue + " history partitions are overdue for dropping "
                            + "(retention " + retention.toDays() + " d): the maintenance leader drops them every 10 minutes",
                    evidence, "check that a maintenance leader runs (see maintenance), or: SELECT " + schema
                            + ".drop_history_partitions(interval '" + retention.toDays() + " days');");
        }
        if (fine) {
            findings.ok("history_partitions", subject, "today's and tomorrow's partitions exist, none is overdue",
                    evidence);
        }
    }

    void maintenance(Findings findings) throws SQLException {
        Maintenance m = queries.maintenance();
        double overdue = m.overdueSeconds() == null ? 0 : m.overdueSeconds();
        String evidence = (m.leader() == null ? "no worker holds the maintenance lease" : "leader " + m.leader())
                + (overdue > 0 ? "; the most overdue scheduled job was due " + Findings.duration(overdue) + " ago"
                : "; no scheduled job is overdue");
        String fix = "start a worker (or `docket serve`) with maintenance on: Worker.Builder.maintenance(true) is the "
                + "default";
        if (m.leader() == null) {
            findings.add(overdue > OVERDUE_SECONDS ? Severity.PROBLEM : Severity.WARNING, "maintenance", "leader",
                    "no maintenance leader: due scheduled jobs and retries are not made ready, expired leases are not "
                            + "rescued, retention and vacuum do not run", evidence, fix);
        } else if (overdue > OVERDUE_SECONDS) {
            findings.warning("maintenance", "leader", "the maintenance leader falls behind making due jobs ready",
                    evidence, "look at the leader's log and health (Worker.health()): its rounds fail or take long");
        } else {
            findings.ok("maintenance", "leader", "a maintenance leader runs and due jobs are made ready", evidence);
        }
    }
}
