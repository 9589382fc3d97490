package dev.docket.internal.db;

import java.sql.SQLException;

/**
 * Tells a lost connection from other database errors. After a database restart every pooled
 * connection is broken, and the pool only finds out as each one is used and fails: a service
 * retries such failures at once (each one evicts a dead connection) instead of backing off, so
 * it resumes as soon as the database is back.
 */
public final class ConnectionLoss {

    private ConnectionLoss() {
    }

    /** Whether {@code e} (or a cause) is a connection failure (SQLSTATE 08xxx) or a terminated backend (57P0x). */
    public static boolean isConnectionLost(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P0"))) {
                return true;
            }
        }
        return false;
    }
}
