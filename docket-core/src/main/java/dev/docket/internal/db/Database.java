package dev.docket.internal.db;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.DocketException;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * Docket's tables in one schema: one query class per table or concern, all over one {@link Jdbc},
 * their statements bound to the schema once, here. Thread-safe; one per {@code Docket}.
 */
public final class Database {

    private final Jdbc jdbc;
    private final JobInsertQueries jobInserts;
    private final JobClaimQueries claims;
    private final JobOutcomeQueries outcomes;
    private final JobQueries jobs;
    private final JobCountQueries jobCounts;
    private final HistoryQueries history;
    private final DeadJobQueries deadJobs;
    private final DeadJobReplayQueries deadJobReplays;
    private final DeadJobRepairQueries deadJobRepairs;
    private final QueueQueries queues;
    private final LeaderQueries leaders;
    private final CronSlotQueries cronSlots;
    private final UniqueKeyQueries uniqueKeys;
    private final StatsQueries stats;
    private final SchemaQueries schema;
    private final WorkerQueries workers;
    private final SloQueries slos;
    private final DoctorQueries doctor;
    private final ExplainQueries explain;
    private final SequenceQueries sequences;
    private final RateLimitQueries rateLimits;
    private final ScheduleQueries schedules;
    private final DependencyQueries dependencies;
    private final WorkflowQueries workflows;
    private final SignalQueries signals;

    public Database(DataSource dataSource, SchemaName schemaName, ObjectMapper json) {
        this(dataSource, schemaName, json, NetworkTimeout.NONE);
    }

    /** @param networkTimeout set on every connection this borrows (see {@link NetworkTimeout}) */
    public Database(DataSource dataSource, SchemaName schemaName, ObjectMapper json, NetworkTimeout networkTimeout) {
        Statements sql = new Statements(schemaName);
        this.jdbc = new Jdbc(dataSource, networkTimeout);
        this.uniqueKeys = new UniqueKeyQueries(jdbc, sql);
        this.jobInserts = new JobInsertQueries(sql, uniqueKeys);
        this.claims = new JobClaimQueries(jdbc, sql);
        this.outcomes = new JobOutcomeQueries(jdbc, sql);
        this.jobs = new JobQueries(jdbc, sql, json, new SignalQueries(jdbc, sql));
        this.jobCounts = new JobCountQueries(jdbc, sql);
        this.history = new HistoryQueries(jdbc, sql);
        this.deadJobs = new DeadJobQueries(jdbc, sql);
        this.deadJobReplays = new DeadJobReplayQueries(jdbc, sql);
        this.deadJobRepairs = new DeadJobRepairQueries(jdbc, sql);
        this.queues = new QueueQueries(jdbc, sql);
        this.leaders = new LeaderQueries(jdbc, sql);
        this.schedules = new ScheduleQueries(jdbc, sql);
        this.cronSlots = new CronSlotQueries(jdbc, sql, jobInserts, queues, schedules);
        this.stats = new StatsQueries(jdbc, sql);
        this.schema = new SchemaQueries(jdbc, sql);
        this.workers = new WorkerQueries(jdbc, sql, json);
        this.slos = new SloQueries(jdbc, sql);
        this.doctor = new DoctorQueries(jdbc, sql);
        this.explain = new ExplainQueries(jdbc, sql);
        this.sequences = new SequenceQueries(jdbc, sql);
        this.rateLimits = new RateLimitQueries(jdbc, sql);
        this.dependencies = new DependencyQueries(jdbc, sql);
        this.workflows = new WorkflowQueries(jdbc, sql);
        this.signals = new SignalQueries(jdbc, sql);
    }

    /** A database call whose {@link SQLException} the public API reports as a {@link DocketException}. */
    public interface Call<T> {
        T run() throws SQLException;
    }

    /** {@link Call} for a write that returns nothing. */
    public interface Update {
        void run() throws SQLException;
    }

    /** The JDBC helper every per-table class here uses, for work that spans tables in one transaction. */
    public Jdbc jdbc() {
        return jdbc;
    }

    /** Runs {@code call}; a failure becomes a {@link DocketException} saying "docket: {@code what} failed: ...". */
    public static <T> T call(String what, Call<T> call) {
        try {
            return call.run();
        } catch (SQLException e) {
            throw new DocketException("docket: " + what + " failed: " + e.getMessage(), e);
        }
    }

    /** {@link #call} for a write that returns nothing. */
    public static void run(String what, Update update) {
        call(what, () -> {
            update.run();
            return null;
        });
    }

    /** The data source every query borrows from. */
    public DataSource dataSource() {
        return jdbc.dataSource();
    }

    public NetworkTimeout networkTimeout() {
        return jdbc.networkTimeout();
    }

    /** Enqueue, on the caller's connection. */
    public JobInsertQueries jobInserts() {
        return jobInserts;
    }

    /** The claim, plain and capped. */
    public JobClaimQueries claims() {
        return claims;
    }

    /** A worker's fenced writes: outcomes and heartbeats. */
    public JobOutcomeQueries outcomes() {
        return outcomes;
    }

    /** Maintenance, operator writes and look-ups of jobs. */
    public JobQueries jobs() {
        return jobs;
    }

    /** The cluster's outcome counters. */
    public JobCountQueries jobCounts() {
        return jobCounts;
    }

    /** The job history's partitions. */
    public HistoryQueries history() {
        return history;
    }

    /** The dead-letter table. */
    public DeadJobQueries deadJobs() {
        return deadJobs;
    }

    /** Dead-letter replays at a rate, and their progress. */
    public DeadJobReplayQueries deadJobReplays() {
        return deadJobReplays;
    }

    /** Repairs of dead jobs' payloads. */
    public DeadJobRepairQueries deadJobRepairs() {
        return deadJobRepairs;
    }

    /** Queue settings and wake-ups. */
    public QueueQueries queues() {
        return queues;
    }

    /** Leader leases. */
    public LeaderQueries leaders() {
        return leaders;
    }

    /** Periodic jobs' slots. */
    public CronSlotQueries cronSlots() {
        return cronSlots;
    }

    /** Unique keys held for a period. */
    public UniqueKeyQueries uniqueKeys() {
        return uniqueKeys;
    }

    /** Statistics over all tables. */
    public StatsQueries stats() {
        return stats;
    }

    /** The schema version and the database clock. */
    public SchemaQueries schema() {
        return schema;
    }

    /** The registry of live workers. */
    public WorkerQueries workers() {
        return workers;
    }

    /** Service-level objectives. */
    public SloQueries slos() {
        return slos;
    }

    /** Doctor's checks of the server and of Docket's tables. */
    public DoctorQueries doctor() {
        return doctor;
    }

    /** What "why is this job not running?" reads. */
    public ExplainQueries explain() {
        return explain;
    }

    /** What holds a sequence's waiting jobs back. */
    public SequenceQueries sequences() {
        return sequences;
    }

    /** Periodic jobs stored at run time, the code-declared ones shown beside them, and their last runs. */
    public ScheduleQueries schedules() {
        return schedules;
    }

    /** Rate limits and their windows. */
    public RateLimitQueries rateLimits() {
        return rateLimits;
    }

    /** Jobs that wait for other jobs. */
    public DependencyQueries dependencies() {
        return dependencies;
    }

    /** Workflows, their steps, and recorded outputs. */
    public WorkflowQueries workflows() {
        return workflows;
    }

    /** Signals sent to jobs. */
    public SignalQueries signals() {
        return signals;
    }
}
