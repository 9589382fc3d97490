package dev.docket.spring;

import dev.docket.ExternalTransactions;
import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Makes {@code docket.enqueue(kind, payload)} (the forms without a {@code Connection}) take part in
 * the Spring-managed transaction of the calling thread on Docket's {@link DataSource}: the job then
 * exists if and only if that transaction commits, and workers learn of it at the commit. Outside such
 * a transaction (none, or one on another resource only) the enqueue commits on its own.
 *
 * <p>A transaction manager that binds a connection to the data source does: {@code
 * DataSourceTransactionManager}, {@code JdbcTransactionManager}, and {@code JpaTransactionManager} with
 * Hibernate.
 */
public final class SpringTransactions implements ExternalTransactions {

    private final DataSource dataSource;

    /** Joins transactions on {@code dataSource}, which must be the one the {@code Docket} was built on. */
    public SpringTransactions(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public Connection currentConnection() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || TransactionSynchronizationManager.getResource(dataSource) == null) {
            return null;
        }
        return DataSourceUtils.getConnection(dataSource);
    }

    @Override
    public void release(Connection connection) {
        DataSourceUtils.releaseConnection(connection, dataSource);
    }

    /**
     * Registers the action to run after the commit. Without transaction synchronization (switched off
     * on the transaction manager) nothing is registered: PostgreSQL's notification, sent at the commit,
     * still wakes the workers.
     */
    @Override
    public void afterCommit(Runnable action) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
    }
}
