package dev.docket;

import java.sql.Connection;

/**
 * Lets the enqueue forms without a {@link Connection} take part in a transaction that something
 * else manages, such as Spring's {@code @Transactional}: given to {@link Docket.Builder#externalTransactions},
 * it is asked before each of those enqueues for the caller's transaction on Docket's data source.
 *
 * <p>When {@link #currentConnection()} returns a connection, the enqueue inserts on it, inside that
 * transaction, exactly like {@code enqueue(connection, ...)}: the job exists if and only if the
 * transaction commits, workers of other processes are notified by PostgreSQL at the commit, and this
 * process's idle workers are woken by the action given to {@link #afterCommit}. When it returns
 * null, the enqueue commits on its own, as without this interface.
 *
 * <p>Implementations must be thread-safe; they are called on the enqueuing thread. The Spring Boot
 * starter ({@code docket-spring-boot-starter}) ships one for Spring-managed transactions.
 */
public interface ExternalTransactions {

    /**
     * The connection of the calling thread's active transaction on Docket's data source, or null
     * when there is none (the enqueue then runs in a transaction of its own). Docket never commits,
     * rolls back or closes it; it gives it back with {@link #release(Connection)} after the insert.
     */
    Connection currentConnection();

    /**
     * Gives back a connection {@link #currentConnection()} returned, once the insert on it is done;
     * the transaction stays open. Default: does nothing.
     */
    default void release(Connection connection) {
    }

    /**
     * Runs {@code action} once the calling thread's current transaction has committed, and never if
     * it rolls back. Called only after {@link #currentConnection()} returned a connection on this
     * thread. The action does not throw.
     */
    void afterCommit(Runnable action);
}
