package dev.docket.internal.db;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.JobError;
import dev.docket.JobInfo;
import dev.docket.JobLog;
import dev.docket.JobProgress;
import dev.docket.JobSignal;
import dev.docket.JobState;
import dev.docket.JobSummary;
import dev.docket.SignalTimeout;
import dev.docket.SignalWait;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The jobs table outside the worker's hot path: maintenance (promotion, rescue, vacuum, waits that time
 * out), the operator's writes (cancel, run now), and look-ups of a job wherever it lives (with its signals).
 */
public record JobQueries(Jdbc jdbc, Statements sql, ObjectMapper json, SignalQueries signals) {

    /** Makes up to {@code limit} due scheduled jobs ready, wakes their queues, and returns how many per queue. */
    public Map<String, Integer> promoteDue(int limit) throws SQLException {
        Map<String, Integer> promoted = new HashMap<>();
        jdbc.autoCommit(c -> {
            Jdbc.each(c, sql.get("jobPromoteDue"), p -> p.int4(limit), rs -> promoted.put(rs.getString("queue"), rs.getInt("promoted")));
            return null;
        });
        return promoted;
    }

    /** What one page of rescue did; {@code jobs} says which queue and kind each rescued job has, and whether it died. */
    public record Rescue(int scanned, int rescued, int dead, long lastId, Set<String> queues, List<Rescued> jobs) {
    }

    /** One job whose lease expired: back to ready, or ({@code dead}) to the dead-letter table. */
    public record Rescued(String queue, String kind, boolean dead) {
    }

    /**
     * Rescues one page of jobs whose lease expired, with ids above {@code afterId}: back to ready
     * with a "lost its lease" error, or to the dead-letter table when their attempts are used up.
     */
    public Rescue rescueExpired(long afterId, int pageSize) throws SQLException {
        return jdbc.transaction(c -> {
            List<Long> ids = Jdbc.list(c, sql.get("jobExpiredLeases"), p -> p.int8(afterId).int4(pageSize), rs -> rs.getLong("id"));
            if (ids.isEmpty()) {
                return new Rescue(0, 0, 0, afterId, Set.of(), List.of());
            }
            SequenceQueries.lockKeysOfJobs(c, sql, ids.toArray());
            List<Rescued> jobs = new ArrayList<>(Jdbc.list(c, sql.get("deadJobInsertExpired"), p -> p.array("bigint", ids),
                    rs -> new Rescued(rs.getString("queue"), rs.getString("kind"), true)));
            int dead = jobs.size();
            jobs.addAll(Jdbc.list(c, sql.get("jobRescueExpired"), p -> p.array("bigint", ids),
                    rs -> new Rescued(rs.getString("queue"), rs.getString("kind"), false)));
            Set<String> queues = new HashSet<>();
            jobs.stream().filter(j -> !j.dead()).forEach(j -> queues.add(j.queue()));
            if (!queues.isEmpty()) {
                Jdbc.execute(c, sql.get("queueNotify"), p -> p.array("text", queues));
            }
            return new Rescue(ids.size(), jobs.size() - dead, dead, ids.getLast(), queues, jobs);
        });
    }

    /** What one page of timed-out waits for a signal became: run anyway, dead, or cancelled. */
    public record WaitsTimedOut(int scanned, int run, int failed, int cancelled) {
    }

    /**
     * Takes one page of jobs whose wait for a signal reached its deadline down their path: run anyway,
     * to the dead-letter table, or cancelled to the history, in one transaction. A signal that arrives for
     * one of them meanwhile waits for the page's row locks and then finds the wait over (it is kept).
     */
    public WaitsTimedOut expireSignalWaits(int pageSize) throws SQLException {
        return jdbc.transaction(c -> {
            List<Long> run = new ArrayList<>();
            List<Long> fail = new ArrayList<>();
            List<Long> cancel = new ArrayList<>();
            Jdbc.each(c, sql.get("jobAwaitExpired"), p -> p.int4(pageSize), rs -> {
                switch (rs.getString("await_on_timeout")) {
                    case "run" -> run.add(rs.getLong("id"));
                    case "fail" -> fail.add(rs.getLong("id"));
                    default -> cancel.add(rs.getLong("id"));
                }
            });
            int ran = run.isEmpty() ? 0 : Jdbc.first(c, sql.get("jobAwaitTimeoutRun"), p -> p.array("bigint", run),
                    rs -> rs.getInt("moved")).orElse(0);
            int failed = fail.isEmpty() ? 0 : Jdbc.list(c, sql.get("deadJobInsertAwaitTimedOut"),
                    p -> p.array("bigint", fail), rs -> rs.getLong("id")).size();
            int cancelled = cancel.isEmpty() ? 0 : Jdbc.first(c, sql.get("jobAwaitTimeoutCancel"),
                    p -> p.array("bigint", cancel), rs -> rs.getInt("moved")).orElse(0);
            return new WaitsTimedOut(run.size() + fail.size() + cancel.size(), ran, failed, cancelled);
        });
    }

    /** Dead row versions in the jobs table, from the statistics system. */
    public long deadRows() throws SQLException {
        return jdbc.first(sql.get("jobDeadRows"), Jdbc.NO_PARAMETERS, rs -> rs.getLong("dead_rows")).orElseThrow();
    }

    /**
     * Vacuums the jobs table; returns the server's warning when it skipped the table (SQLSTATE 42501:
     * this role may not vacuum it; 55P03: another vacuum or DDL holds it), else null.
     */
    public SQLWarning vacuum() throws SQLException {
        // VACUUM cannot run inside a transaction block: auto-commit, whatever the pool's default.
        return jdbc.autoCommit(c -> {
            try (Statement st = c.createStatement()) {
                st.execute(sql.get("jobVacuum"));
                return st.getWarnings();
            }
        });
    }

    /** How many jobs of {@code queue} have not finished: the jobs table holds exactly those. */
    public long countLive(String queue) throws SQLException {
        return jdbc.first(sql.get("jobCountLiveInQueue"), p -> p.text(queue), rs -> rs.getLong("live")).orElseThrow();
    }

    /** Unfinished jobs counted by queue and kind, as {@code {queue, kind, count}} rows ordered by queue then kind. */
    public List<LiveCount> countLiveByQueueAndKind() throws SQLException {
        return jdbc.list(sql.get("jobCountLiveByQueueAndKind"), Jdbc.NO_PARAMETERS,
                rs -> new LiveCount(rs.getString("queue"), rs.getString("kind"), rs.getLong("live")));
    }

    /** How many unfinished jobs of one kind one queue holds. */
    public record LiveCount(String queue, String kind, long live) {
    }

    /** Finds a job wherever it lives: the live table, the history or the dead-letter table; with its latest signals. */
    public Optional<JobInfo> find(long id) throws SQLException {
        Optional<JobInfo> job = jdbc.first(sql.get("jobFind"), p -> p.int8(id).int8(id).int8(id), this::jobInfo);
        if (job.isEmpty()) {
            return job;
        }
        List<JobSignal> sent = signals.forJob(id);
        if (sent.isEmpty()) {
            return job;
        }
        JobInfo j = job.get();
        return Optional.of(j.withStoredValues(j.payload(), j.output(), sent, j.payloadEncrypted()));
    }

    /**
     * Moves a live job to the history as cancelled (a running one stops at its next heartbeat).
     * Returns the state it was cancelled from ('scheduled', 'ready', 'running'), or empty when no live
     * job has this id.
     */
    public Optional<String> cancel(long id) throws SQLException {
        return jdbc.first(sql.get("jobCancel"), p -> p.int8(id), rs -> rs.getString("state"));
    }

    /** One keyset page of jobs across the live, history and dead-letter tables. */
    public List<JobSummary> list(JobState state, String queue, String kind, Long before, int limit) throws SQLException {
        String stateColumn = state == null ? null : state.name().toLowerCase(Locale.ROOT);
        long below = before == null ? Long.MAX_VALUE : before;
        return jdbc.list(sql.get("jobList"), p -> {
            for (int table = 0; table < 3; table++) {
                p.text(stateColumn).text(stateColumn).text(queue).text(queue).text(kind).text(kind).int8(below);
            }
            p.int4(limit);
        }, JobQueries::summary);
    }

    /** Makes a scheduled job (future, or waiting out a backoff) ready now; false if it is not scheduled. */
    public boolean runNow(long id) throws SQLException {
        return jdbc.first(sql.get("jobRunNow"), p -> p.int8(id), rs -> true).isPresent();
    }

    /**
     * Edits a job that has not started, whole or not at all (the statement says how it meets a claim); returns
     * its state after the edit, or empty when no job with this id was in an editable state. Null values are left
     * as they are; {@code changedJson} (a JSON array of field names) and {@code by} go to its metadata.
     */
    public Optional<JobState> edit(long id, String payloadJson, Integer priority, String queue, boolean runNow,
                                   Long runAtMicros, String by, String changedJson) throws SQLException {
        return jdbc.first(sql.get("jobEdit"), p -> p.int8(id).text(payloadJson).int4(priority).text(queue).bool(runNow)
                .int8(runAtMicros).text(by).text(changedJson), JobQueries::state);
    }

    /** Makes the scheduled jobs of {@code queues} due within {@code horizonMillis} ready now; returns how many. */
    public int makeDue(Collection<String> queues, long horizonMillis) throws SQLException {
        return jdbc.update(sql.get("jobMakeDue"), p -> p.array("text", queues).int8(horizonMillis));
    }

    /** A row of a job listing ({@code jobSummaryColumns} and state, finished_at, error_count, reason). */
    static JobSummary summary(ResultSet rs) throws SQLException {
        return new JobSummary(rs.getLong("id"), rs.getString("queue"), rs.getString("kind"), state(rs),
                rs.getInt("priority"), rs.getInt("attempt"), rs.getInt("max_attempts"), Jdbc.instant(rs, "run_at"),
                Jdbc.instant(rs, "created_at"), Jdbc.instant(rs, "attempted_at"), Jdbc.instant(rs, "finished_at"),
                rs.getString("tenant"), rs.getInt("error_count"), rs.getString("reason"));
    }

    private JobInfo jobInfo(ResultSet rs) throws SQLException {
        return new JobInfo(rs.getLong("id"), rs.getString("queue"), rs.getString("kind"), state(rs),
                rs.getInt("priority"), rs.getInt("attempt"), rs.getInt("max_attempts"), Jdbc.instant(rs, "run_at"),
                Jdbc.instant(rs, "created_at"), Jdbc.instant(rs, "attempted_at"), Jdbc.instant(rs, "finished_at"),
                rs.getString("tenant"), rs.getString("unique_key"), rs.getString("locked_by"), rs.getString("reason"),
                rs.getInt("payload_version"), rs.getString("payload"), errors(rs.getString("errors")),
                rs.getString("metadata"), rs.getString("sequence_key"), rs.getString("output"), signalWait(rs),
                List.of(), progress(rs.getString("progress")), logs(rs.getString("logs")));
    }

    private static SignalWait signalWait(ResultSet rs) throws SQLException {
        String signal = rs.getString("await_signal");
        if (signal == null) {
            return null;
        }
        String onTimeout = rs.getString("await_on_timeout");
        return new SignalWait(signal, Jdbc.instant(rs, "await_since"), Jdbc.instant(rs, "await_deadline"),
                onTimeout == null ? null : SignalTimeout.valueOf(onTimeout.toUpperCase(Locale.ROOT)));
    }

    private JobProgress progress(String progressJson) throws SQLException {
        if (progressJson == null) {
            return null;
        }
        try {
            JsonNode p = json.readTree(progressJson);
            return new JobProgress(p.path("fraction").asDouble(), p.path("message").asText(null),
                    p.path("attempt").asInt(), OffsetDateTime.parse(p.path("at").asText()).toInstant());
        } catch (Exception e) {
            throw new SQLException("unreadable progress column: " + e.getMessage(), e);
        }
    }

    /** The logs column ({"<attempt>": {"lines": [{"at", "message"}], "dropped": n}}), oldest attempt first. */
    private List<JobLog> logs(String logsJson) throws SQLException {
        if (logsJson == null) {
            return List.of();
        }
        try {
            List<JobLog> logs = new ArrayList<>();
            Iterator<Map.Entry<String, JsonNode>> attempts = json.readTree(logsJson).fields();
            while (attempts.hasNext()) {
                Map.Entry<String, JsonNode> a = attempts.next();
                List<JobLog.Line> lines = new ArrayList<>();
                for (JsonNode line : a.getValue().path("lines")) {
                    lines.add(new JobLog.Line(Instant.parse(line.path("at").asText()), line.path("message").asText()));
                }
                logs.add(new JobLog(Integer.parseInt(a.getKey()), a.getValue().path("dropped").asLong(), lines));
            }
            logs.sort(Comparator.comparingInt(JobLog::attempt));
            return logs;
        } catch (Exception e) {
            throw new SQLException("unreadable logs column: " + e.getMessage(), e);
        }
    }

    private static JobState state(ResultSet rs) throws SQLException {
        return JobState.valueOf(rs.getString("state").toUpperCase(Locale.ROOT));
    }

    private List<JobError> errors(String errorsJson) throws SQLException {
        try {
            List<JobError> errors = new ArrayList<>();
            for (JsonNode e : json.readTree(errorsJson)) {
                errors.add(new JobError(e.path("attempt").asInt(), e.hasNonNull("at")
                        ? OffsetDateTime.parse(e.get("at").asText()).toInstant() : null,
                        e.path("error").asText(null), e.path("worker").asText(null)));
            }
            return errors;
        } catch (Exception e) {
            throw new SQLException("unreadable errors column: " + e.getMessage(), e);
        }
    }
}
