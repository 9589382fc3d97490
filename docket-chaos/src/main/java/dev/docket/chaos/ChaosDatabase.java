package dev.docket.chaos;

/**
 * The PostgreSQL a chaos run works against, and the one outage it can cause mid-run (a restart, a
 * failover). The harness connects with {@link #harnessUrl()}; a worker on the host that reaches the
 * database at {@code address} connects with {@link #workerUrl(String)}.
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

    @Override
    void close();
}
