package dev.docket.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.docket.DeadJobGroup;
import dev.docket.JobError;
import dev.docket.JobInfo;
import dev.docket.JobLog;
import dev.docket.JobProgress;
import dev.docket.JobSignal;
import dev.docket.JobState;
import dev.docket.JobSummary;
import dev.docket.QueueSettings;
import dev.docket.QueueStats;
import dev.docket.SignalWait;
import dev.docket.TenantRunning;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The JSON shapes of the API's responses, as records Jackson writes in declaration order. Their
 * field names are the API's contract (the dashboard and the OpenAPI document rely on them).
 */
public final class ResponseViews {

    private ResponseViews() {
    }

    /** A state as the API spells it: lower case. */
    public static String state(JobState state) {
        return state.name().toLowerCase(Locale.ROOT);
    }

    /**
     * One job: the fields of its summary, then the rest; {@code payload} only when the caller may see
     * it, else {@code payloadRedacted: true} (each is left out when the other is present). The output its
     * handler recorded follows the same rule: {@code output} for a caller who may see payloads, else
     * {@code outputRedacted: true}; both are left out when the job recorded none. So do the payloads of its
     * {@code signals}. {@code signalWait} (what a waiting job waits for) and {@code progress} are left out
     * when there is none; {@code signals} and {@code logs} (one entry per attempt) are empty then.
     * {@code payloadEncrypted: true} (left out otherwise) says the job's payload (and with it its output and
     * signals' payloads) is stored encrypted at rest: a server without the key shows neither {@code payload} nor
     * {@code payloadRedacted} then, and leaves out the output and the signals' payloads it cannot read (never the
     * ciphertext); with the key, a caller who may see payloads sees them in clear.
     */
    public record Job(long id, String kind, String queue, String state, int priority, int attempt, int maxAttempts,
                      Instant runAt, Instant createdAt, Instant attemptedAt, Instant finishedAt, String tenant,
                      int errorCount, String deadReason, String uniqueKey, String lockedBy, int payloadVersion,
                      RawJson metadata, @JsonInclude(JsonInclude.Include.NON_NULL) Object payload,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Boolean payloadRedacted, List<Error> errors,
                      String sequenceKey, @JsonInclude(JsonInclude.Include.NON_NULL) Object output,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Boolean outputRedacted,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Wait signalWait, List<Signal> signals,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Progress progress, List<AttemptLog> logs,
                      @JsonInclude(JsonInclude.Include.NON_NULL) Boolean payloadEncrypted) {

        /**
         * This view with {@code payload} and {@code output} (null: none) in place of whatever it showed (the
         * CLI prints them parsed, so indented).
         */
        public Job withShown(Object payload, Object output) {
            return new Job(id, kind, queue, state, priority, attempt, maxAttempts, runAt, createdAt, attemptedAt,
                    finishedAt, tenant, errorCount, deadReason, uniqueKey, lockedBy, payloadVersion, metadata, payload,
                    null, errors, sequenceKey, output, null, signalWait, signals, progress, logs, payloadEncrypted);
        }
    }

    /** What a waiting job waits for: a signal, since when, and its timeout ({@code deadline}, {@code onTimeout}) if any. */
    public record Wait(String signal, Instant since, @JsonInclude(JsonInclude.Include.NON_NULL) Instant deadline,
                       @JsonInclude(JsonInclude.Include.NON_NULL) String onTimeout) {
    }

    /**
     * A signal sent to the job; {@code resumedAt} is when it ended a wait (null while kept). Its payload follows
     * the job payload's rule, {@code payloadEncrypted: true} included.
     */
    public record Signal(long id, String name, Instant sentAt, String sentBy, Instant resumedAt,
                         @JsonInclude(JsonInclude.Include.NON_NULL) RawJson payload,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Boolean payloadRedacted,
                         @JsonInclude(JsonInclude.Include.NON_NULL) Boolean payloadEncrypted) {
    }

    /** How far the job has come, as its handler last reported it. */
    public record Progress(double fraction, String message, int attempt, Instant at) {
    }

    /** One attempt's kept log lines, oldest first, and how many older ones its cap dropped. */
    public record AttemptLog(int attempt, long droppedLines, List<LogLine> lines) {
    }

    /** One log line. */
    public record LogLine(Instant at, String message) {
    }

    /** One failed attempt of a job. */
    public record Error(int attempt, Instant at, String message, String worker) {
    }

    /** A listing row: no payload, no error texts. */
    public record Summary(long id, String kind, String queue, String state, int priority, int attempt, int maxAttempts,
                          Instant runAt, Instant createdAt, Instant attemptedAt, Instant finishedAt, String tenant,
                          int errorCount, String deadReason) {
    }

    /** A page of summaries with the cursor of the next page ({@code null} on the last). */
    public record Page(List<Summary> jobs, Long next) {
    }

    /** A job's id and state after an operation on it. */
    public record JobStatus(long id, String state) {
    }

    /** One queue and kind's numbers; {@code backlog} is {@code ready + overdue}, what autoscalers read. */
    public record Stats(String queue, String kind, long scheduled, long ready, long running, long overdue, long backlog,
                        double lagSeconds,
                        long completedPerMinute, long failedPerMinute, long dead, long deadLast24h,
                        Double pickupP50Millis, Double pickupP99Millis) {
    }

    /** {@code GET /api/stats}: every queue and kind with jobs. */
    public record StatsList(List<Stats> queues) {
    }

    /**
     * Dead jobs grouped by kind and error signature (their last error with numbers, ids and quoted
     * values stripped); {@code error} is the newest job's first line, as an example.
     */
    public record Group(String kind, String signature, String error, long count, Instant firstDiedAt,
                        Instant lastDiedAt) {
    }

    /** {@code GET /api/dlq/groups}: largest groups first. */
    public record Groups(List<Group> groups) {
    }

    /** A queue's cluster-wide settings. */
    public record Queue(String name, boolean paused, Integer maxRunning, Integer tenantMaxRunning, Instant updatedAt) {
    }

    /** How many jobs of one tenant run in a queue now. */
    public record Running(String queue, String tenant, long running) {
    }

    /** {@code GET /api/queues}. */
    public record Queues(List<Queue> queues, List<Running> runningByTenant) {
    }

    /**
     * The view of a job; its payload and its output only if {@code showPayload}, and only those this server could
     * read (an encrypted one it has no key for is left out, {@code payloadEncrypted} says why).
     */
    public static Job job(JobInfo j, boolean showPayload) {
        boolean encrypted = j.payloadEncrypted();
        // Without the key the payload is null in the JobInfo: nothing to show, and nothing redacted either.
        boolean unreadable = encrypted && j.payload() == null;
        return new Job(j.id(), j.kind(), j.queue(), state(j.state()), j.priority(), j.attempt(), j.maxAttempts(),
                j.runAt(), j.createdAt(), j.attemptedAt(), j.finishedAt(), j.tenant(), j.errors().size(), j.deadReason(),
                j.uniqueKey(), j.lockedBy(), j.payloadVersion(), new RawJson(j.metadata()),
                showPayload && j.payload() != null ? new RawJson(j.payload()) : null,
                showPayload || unreadable ? null : Boolean.TRUE,
                j.errors().stream().map(ResponseViews::error).toList(), j.sequenceKey(),
                showPayload && j.output() != null ? new RawJson(j.output()) : null,
                showPayload || j.output() == null ? null : Boolean.TRUE, waitOf(j.signalWait()),
                j.signals().stream().map(s -> signal(s, showPayload, encrypted)).toList(), progress(j.progress()),
                j.logs().stream().map(ResponseViews::attemptLog).toList(), encrypted ? Boolean.TRUE : null);
    }

    private static Wait waitOf(SignalWait w) {
        return w == null ? null : new Wait(w.signal(), w.since(), w.deadline(),
                w.onTimeout() == null ? null : w.onTimeout().name().toLowerCase(Locale.ROOT));
    }

    private static Signal signal(JobSignal s, boolean showPayload, boolean jobEncrypted) {
        boolean unreadable = jobEncrypted && s.payload() == null;
        return new Signal(s.id(), s.name(), s.sentAt(), s.sentBy(), s.resumedAt(),
                showPayload && s.payload() != null ? new RawJson(s.payload()) : null,
                showPayload || unreadable ? null : Boolean.TRUE, unreadable ? Boolean.TRUE : null);
    }

    private static Progress progress(JobProgress p) {
        return p == null ? null : new Progress(p.fraction(), p.message(), p.attempt(), p.at());
    }

    private static AttemptLog attemptLog(JobLog l) {
        return new AttemptLog(l.attempt(), l.droppedLines(),
                l.lines().stream().map(line -> new LogLine(line.at(), line.message())).toList());
    }

    private static Error error(JobError e) {
        return new Error(e.attempt(), e.at(), e.message(), e.worker());
    }

    /** The view of a listing row. */
    public static Summary summary(JobSummary j) {
        return new Summary(j.id(), j.kind(), j.queue(), state(j.state()), j.priority(), j.attempt(), j.maxAttempts(),
                j.runAt(), j.createdAt(), j.attemptedAt(), j.finishedAt(), j.tenant(), j.errorCount(), j.deadReason());
    }

    /** A page of rows; a full page has a next cursor (its last id), a short one has none. */
    public static Page page(List<JobSummary> rows, int limit) {
        return new Page(rows.stream().map(ResponseViews::summary).toList(), rows.size() == limit ? rows.getLast().id() : null);
    }

    /** The view of one queue and kind's statistics. */
    public static Stats stats(QueueStats s) {
        return new Stats(s.queue(), s.kind(), s.scheduled(), s.ready(), s.running(), s.overdue(), s.backlog(),
                s.oldestReadyAgeSeconds(), s.completedLastMinute(), s.failedLastMinute(), s.dead(), s.deadLast24h(),
                s.pickupP50Millis(), s.pickupP99Millis());
    }

    /** The view of a group of dead jobs. */
    public static Group group(DeadJobGroup g) {
        return new Group(g.kind(), g.signature(), g.error(), g.count(), g.firstDiedAt(), g.lastDiedAt());
    }

    /** The view of a queue's settings. */
    public static Queue queue(QueueSettings q) {
        return new Queue(q.queue(), q.paused(), q.maxRunning(), q.tenantMaxRunning(), q.updatedAt());
    }

    /** The view of one tenant's running count. */
    public static Running running(TenantRunning t) {
        return new Running(t.queue(), t.tenant(), t.running());
    }
}
