package dev.docket.server.api;

import dev.docket.DatabasesDoctorReport;
import dev.docket.DoctorReport;
import dev.docket.JobExplanation;
import dev.docket.Slo;
import dev.docket.WorkerInfo;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The JSON shapes of doctor's report, the registered workers, a job's explanation and the SLOs, as the
 * API answers them and {@code docket doctor --json}, {@code docket job explain --json} print them.
 * Enum values are lower case, as job states are ({@link ResponseViews#state}).
 */
public final class OperationsViews {

    private OperationsViews() {
    }

    /** {@code GET /api/doctor}: status {@code ok}, {@code warning} or {@code problem}, and the exit status it maps to. */
    public record Doctor(String status, int exitCode, Instant checkedAt, List<Finding> findings, List<Worker> workers) {
    }

    public record Finding(String check, String severity, String subject, String cause, String evidence, String fix) {
    }

    /**
     * One registered worker: {@code running} counts the jobs locked by it (the jobs table, claimed-ahead
     * ones included); {@code concurrency}, {@code handlersRunning}, {@code finishedLastMinute} and
     * {@code failedLastMinute} are what its last heartbeat wrote ({@link WorkerInfo}), and
     * {@code heartbeatAgeSeconds} how long ago that was by the database clock.
     */
    public record Worker(String id, String host, long pid, Map<String, Integer> queues, Map<String, Integer> kinds,
                         String version, Integer poolSize, int connectionsNeeded, boolean listen, boolean listening,
                         List<String> stalled, long heartbeatIntervalMillis, Instant startedAt, Instant heartbeatAt,
                         boolean live, long running, int concurrency, int handlersRunning, long finishedLastMinute,
                         long failedLastMinute, double heartbeatAgeSeconds) {
    }

    public record Workers(List<Worker> workers) {
    }

    /** {@code GET /api/jobs/{id}/explain}: the first reason's message as {@code summary}, then every reason. */
    public record Explanation(long jobId, String state, String queue, String kind, String summary, List<Reason> reasons) {
    }

    public record Reason(String code, String message, Map<String, String> facts) {
    }

    public record SloView(String target, String name, double objectiveSeconds, Instant updatedAt) {
    }

    public record Slos(List<SloView> slos) {
    }

    /**
     * {@code GET /api/databases/doctor} and {@code docket doctor --database ... --json}: each database's
     * report by name, and the findings of the checks across databases.
     */
    public record DatabasesDoctor(String status, int exitCode, List<Finding> acrossDatabases,
                                  Map<String, Doctor> databases) {
    }

    public static DatabasesDoctor doctor(DatabasesDoctorReport r) {
        Map<String, Doctor> each = new java.util.LinkedHashMap<>();
        r.byDatabase().forEach((name, report) -> each.put(name, doctor(report)));
        return new DatabasesDoctor(lower(r.status()), r.exitCode(), r.acrossDatabases().stream()
                .map(f -> new Finding(f.check(), lower(f.severity()), f.subject(), f.cause(), f.evidence(), f.fix()))
                .toList(), each);
    }

    public static Doctor doctor(DoctorReport r) {
        return new Doctor(lower(r.status()), r.exitCode(), r.checkedAt(), r.findings().stream()
                .map(f -> new Finding(f.check(), lower(f.severity()), f.subject(), f.cause(), f.evidence(), f.fix()))
                .toList(), r.workers().stream().map(OperationsViews::worker).toList());
    }

    public static Worker worker(WorkerInfo w) {
        return new Worker(w.id(), w.host(), w.pid(), w.queues(), w.kinds(), w.version(), w.poolSize(),
                w.connectionsNeeded(), w.listen(), w.listening(), w.stalled(), w.heartbeatInterval().toMillis(),
                w.startedAt(), w.heartbeatAt(), w.live(), w.running(), w.concurrency(), w.handlersRunning(),
                w.finishedLastMinute(), w.failedLastMinute(), w.heartbeatAge().toMillis() / 1000.0);
    }

    public static Explanation explanation(JobExplanation e) {
        return new Explanation(e.jobId(), ResponseViews.state(e.state()), e.queue(), e.kind(), e.reasons().getFirst().message(),
                e.reasons().stream().map(r -> new Reason(lower(r.code()), r.message(), r.facts())).toList());
    }

    public static SloView slo(Slo s) {
        return new SloView(lower(s.target()), s.name(), s.objectiveSeconds(), s.updatedAt());
    }

    static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
