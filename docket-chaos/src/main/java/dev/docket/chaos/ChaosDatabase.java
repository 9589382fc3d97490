package dev.docket.chaos;

/**
 * The PostgreSQL a chaos run works against, and the outage it causes mid-run (a restart, a failover),
 * after a planned one where the database has it (a switchover). The harness connects with
 * {@link #harnessUrl()}; a worker on the host that reaches the database at {@code address} connects with
 * {@link #workerUrl(String)}.
 */
interface ChaosDatabase extends AutoCloseable {

    /** The JDBC URL of the harness's own pool: by default a worker's on this host. */
    default String harnessUrl() {
        return workerUrl("127.0.0.1");
    }

    /** The JDBC URL through which the harness enqueues, as an application would; default the harness's. */
    default String producerUrl() {
        return harnessUrl();
    }

    /** The JDBC URL of a worker's pool, from a host that reaches the database server at {@code address}. */
    String workerUrl(String address);

    /** The JDBC URL of a worker's LISTEN connection, or null to listen through its pool. */
    default String listenerUrl(String address) {
        return null;
    }

    /** What {@link #disrupt()} does, for the report: "database restart", "failover", ... */
    String disruption();

    /** Causes the outage and returns, once the database takes connections again, how long it lasted. */
    Outage disrupt() throws Exception;

    /** What {@link #disruptPlanned()} does ("switchover"), or null when this database has no planned disruption. */
    default String plannedDisruption() {
        return null;
    }

    /**
     * Causes the planned disruption, which comes before {@link #disrupt()}, and returns, once the database
     * takes writes again, how long it lasted. Only when {@link #plannedDisruption()} names one.
     */
    default Outage disruptPlanned() throws Exception {
        throw new UnsupportedOperationException("no planned disruption");
    }

    @Override
    void close();
}
