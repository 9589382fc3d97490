package dev.docket.internal.db;

import java.util.Objects;

/**
 * Which PostgreSQL database a connection is on: the server's system identifier (set at initdb,
 * kept by its physical standbys, so a failover keeps it) and the database's oid, which together name
 * one database of one cluster whatever URL, host name, port or pooler reached it.
 *
 * <p>A role that may not call {@code pg_control_system()} reads no system identifier; then the
 * server's address and port stand in for it, which a multi-host URL or a pooler can make differ for
 * one database: such a mismatch is refused, never accepted.
 *
 * @param systemIdentifier the cluster's system identifier, or {@code null} when the role may not read it
 * @param databaseOid      the database's oid in its cluster
 * @param databaseName     the database's name, for messages
 * @param serverAddress    address and port as the server sees them, for messages and the fallback
 */
public record DatabaseIdentity(String systemIdentifier, long databaseOid, String databaseName, String serverAddress) {

    /** Whether the two are the same database. */
    public boolean sameDatabase(DatabaseIdentity other) {
        if (databaseOid != other.databaseOid || !databaseName.equals(other.databaseName)) {
            return false;
        }
        if (systemIdentifier != null && other.systemIdentifier != null) {
            return systemIdentifier.equals(other.systemIdentifier);
        }
        return Objects.equals(serverAddress, other.serverAddress);
    }

    @Override
    public String toString() {
        return "database " + databaseName + " (oid " + databaseOid + ") of "
                + (systemIdentifier != null ? "cluster " + systemIdentifier : "server " + serverAddress);
    }
}
