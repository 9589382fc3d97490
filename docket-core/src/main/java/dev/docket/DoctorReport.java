package dev.docket;

import java.time.Instant;
import java.util.List;

/**
 * What {@link DocketAdmin#doctor()} found: one {@link Finding} per check and subject (a passing check
 * is a finding of severity {@link Severity#OK}, so the report also says what was looked at), and the
 * registered workers. {@code docket doctor}, {@code GET /api/doctor} and the dashboard's Doctor page
 * all show this report.
 *
 * @param checkedAt when the checks ran, by the database clock
 * @param findings  every finding, the worst first (problems, then warnings, then passing checks)
 * @param workers   every registered worker, live or with stopped heartbeats
 */
public record DoctorReport(Instant checkedAt, List<Finding> findings, List<WorkerInfo> workers) {

    public DoctorReport {
        findings = List.copyOf(findings);
        workers = List.copyOf(workers);
    }

    /** How bad a finding is. */
    public enum Severity {
        /** The check passed. */
        OK,
        /** Not yet harmful, or harmful only if it lasts: look at it. */
        WARNING,
        /** Jobs are delayed, lost to the dead-letter table, or will be: act now. */
        PROBLEM
    }

    /**
     * One check's verdict on one subject.
     *
     * @param check    the check's stable code, for scripts and alert routing: {@code vacuum_debt},
     *                 {@code xmin_horizon}, {@code settings_drift}, {@code queue_lag}, {@code pickup_p99},
     *                 {@code dead_letter_growth}, {@code paused_backlog}, {@code unserved_kinds},
     *                 {@code history_partitions}, {@code maintenance}, {@code workers}, {@code worker_stopped},
     *                 {@code pool_too_small}, {@code listener_down}, {@code worker_stalled}, or
     *                 {@code check_failed} (a check that could not run, typically for want of a privilege)
     * @param severity how bad it is
     * @param subject  what it is about: a table, a queue, a kind, a session ({@code pid 4242}), a worker
     * @param cause    what is wrong (or, when OK, what holds)
     * @param evidence the figures that show it
     * @param fix      what to do, with the statement or command to run where there is one; empty when OK
     */
    public record Finding(String check, Severity severity, String subject, String cause, String evidence, String fix) {
    }

    /** The worst severity found ({@link Severity#OK} when every check passed). */
    public Severity status() {
        return findings.stream().map(Finding::severity).max(Enum::compareTo).orElse(Severity.OK);
    }

    /** The exit status {@code docket doctor} ends with: 0 healthy, 1 warnings, 2 problems. */
    public int exitCode() {
        return status().ordinal();
    }

    /** The findings of {@code check} (any severity). */
    public List<Finding> findings(String check) {
        return findings.stream().filter(f -> f.check().equals(check)).toList();
    }

    /** The findings that are not OK. */
    public List<Finding> problems() {
        return findings.stream().filter(f -> f.severity() != Severity.OK).toList();
    }
}
