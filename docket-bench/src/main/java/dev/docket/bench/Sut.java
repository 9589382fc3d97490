package dev.docket.bench;

import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * One system under test, opened on a fresh database for each measurement. Jobs are no-ops that carry a
 * sequence number; the worker tells {@link Starts} when the handler starts.
 */
interface Sut extends AutoCloseable {

    /**
     * The scenarios that measure what only Docket has (tenant caps, sequence keys, rate limits) or Docket
     * alone (scale-out): the peers measure none of them.
     */
    Set<String> DOCKET_ONLY = Set.of("fairness", "scaleout", "sequences", "ratelimit");

    String name();

    /** The configurations measured for a scenario, e.g. claim batch sizes; the first is the default; none to skip it. */
    List<String> configs(String scenario);

    /**
     * Whether a configuration is measured only when {@code --configs} names it: one that trades durability
     * for speed, so that a default run's ratios compare durable configurations only. None by default.
     */
    default boolean optIn(String config) {
        return false;
    }

    /**
     * Where a system keeps the jobs it has not yet durably completed.
     *
     * @param countSql  a {@code count(*)} of those jobs
     * @param relations the relation names (table and indexes) that hold them, for size reports
     */
    record LiveJobs(String countSql, List<String> relations) {

        /** How many jobs are live now, read on {@code ds} (the database the system was opened on). */
        long count(DataSource ds) throws Exception {
            return Db.count(ds, countSql);
        }
    }

    /** Creates the system's schema on a fresh, empty database and readies it in {@code config}. */
    void open(String jdbcUrl, DataSource dataSource, String config) throws Exception;

    /** Enqueues jobs {@code from .. from+count-1} in one bulk call (one transaction where the API allows). */
    void enqueueBatch(long from, int count) throws Exception;

    /** Enqueues one job in its own transaction; safe to call from several threads. */
    void enqueueOne(long seq) throws Exception;

    /** Told when a handler starts: the job's sequence number and {@link System#nanoTime()} at its start. */
    @FunctionalInterface
    interface Starts {
        /** Where starts go while no measurement listens (between measurements). */
        Starts NONE = (seq, nanoTime) -> {
        };

        void started(long seq, long nanoTime);
    }

    /** Starts workers with this many concurrent handlers, each of which tells {@code onStart} when it starts. */
    void startWorkers(int concurrency, Starts onStart) throws Exception;

    void stopWorkers() throws Exception;

    /** Where the jobs not yet durably completed are, to count them and size their relations. */
    LiveJobs liveJobs();

    /** Stops the workers and frees what {@link #open} took; by default only stops the workers. */
    @Override
    default void close() throws Exception {
        stopWorkers();
    }
}
