package dev.docket.internal.migrate;

import dev.docket.DocketException;
import dev.docket.internal.db.Database;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Refuses work against a schema at another version than this build's, with a message saying what to
 * run. Checked once per Docket instance (then remembered), with statements that cannot fail, so a
 * check inside a caller's transaction never aborts it.
 */
public final class SchemaGuard {

    private final Database store;
    private final String schema;
    private volatile boolean current;

    public SchemaGuard(Database store, String schema) {
        this.store = store;
        this.schema = schema;
    }

    /** After a successful migration: the schema is current, nothing left to check. */
    public void markCurrent() {
        current = true;
    }

    public void require(Connection c) throws SQLException {
        if (current) {
            return;
        }
        int found = store.schema().version(c);
        int wanted = Migrator.supportedVersion();
        if (found < wanted) {
            throw new DocketException("docket: schema " + schema + " is at version " + found
                    + " but this Docket needs version " + wanted
                    + ": run docket.migrate() (or `docket migrate`) before starting work");
        }
        if (found > wanted) {
            throw new DocketException("docket: schema " + schema + " is at version " + found
                    + ", newer than this Docket supports (" + wanted + "): upgrade Docket on this node");
        }
        current = true;
    }

    /** {@link #require(Connection)} on a connection of its own. */
    public void require() {
        try (Connection c = store.dataSource().getConnection()) {
            require(c);
        } catch (SQLException e) {
            throw new DocketException("docket: cannot check the schema version: " + e.getMessage(), e);
        }
    }
}
