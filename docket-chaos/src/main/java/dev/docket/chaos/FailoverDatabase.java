package dev.docket.chaos;

import java.nio.file.Path;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A primary and a standby whose disruption is a failover: the killed primary's data stays on disk, so
 * that {@link FailoverAudit} can open it again after the run and see what the failover lost, and the
 * bounds the audit holds the recovery to.
 */
interface FailoverDatabase extends ChaosDatabase {

    /** Whether commits waited for the standby: then no acknowledged enqueue may be lost. */
    boolean synchronous();

    /**
     * Opens the killed primary's data again, alone on a port no client knows (crash recovery replays
     * what it had committed); {@link OldPrimary#close()} stops it. Call after the run only.
     */
    OldPrimary openOldPrimary(Path log) throws Exception;

    /** The longest the primary's death may keep every worker from starting jobs on the new primary. */
    Duration resumeBound();

    /** The longest from the primary's death to a promoted standby, or null when promotion is not bounded. */
    default Duration promoteBound() {
        return null;
    }

    /** The longest the planned disruption may keep the cluster from taking writes; only with one. */
    default Duration plannedBound() {
        throw new UnsupportedOperationException("no planned disruption");
    }

    /** The longest the planned disruption may keep every worker from starting jobs again; only with one. */
    default Duration plannedResumeBound() {
        throw new UnsupportedOperationException("no planned disruption");
    }

    /** Adds the servers' own checks at the end of the run to {@code r}; none by default. */
    default void checkAtEnd(ChaosReport r) throws Exception {
    }

    /** The killed primary, opened again for reading. */
    record OldPrimary(DataSource dataSource, Stop stop) implements AutoCloseable {
        interface Stop {
            void run() throws Exception;
        }

        @Override
        public void close() throws Exception {
            stop.run();
        }
    }
}
