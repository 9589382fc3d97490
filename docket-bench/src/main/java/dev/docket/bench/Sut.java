package dev.docket.bench;

import java.util.List;
import javax.sql.DataSource;

/**
 * One system under test, opened on a fresh database for each measurement. Jobs are no-ops that carry a
 * sequence number; the worker tells {@link Starts} when the handler starts.
 */
interface Sut extends AutoCloseable {

    String name();

    /** The configurations measured for a scenario, e.g. claim batch sizes; the first is the default. */
    List<String> configs(String scenario);

    /** Creates the system's schema on a fresh, empty database and readies it in {@code config}. */
    void open(String jdbcUrl, DataSource dataSource, String config) throws Exception;

    /** Enqueues jobs {@code from .. from+count-1} in one bulk call (one transaction where the API allows). */
    void enqueueBatch(long from, int count) throws Exception;

    /** Enqueues one job in its own transaction; safe to call from several threads. */
    void enqueueOne(long seq) throws Exception;

    /** Told when a handler starts: the job's sequence number and {@link System#nanoTime()} at its start. */
    @FunctionalInterface
    interface Starts {
        /** For runs that measure no latency: a system may then skip reporting starts altogether. */
        Starts NONE = (seq, nanoTime) -> {
        };

        void started(long seq, long nanoTime);
    }

    /** Starts workers with this many concurrent handlers. */
    void startWorkers(int concurrency, Starts onStart) throws Exception;

    void stopWorkers() throws Exception;

    /** Jobs not yet durably completed. */
    long liveCount() throws Exception;

    /** Relation names (table and indexes) that hold live jobs, for size reports. */
    List<String> relations();

    @Override
    void close() throws Exception;
}
