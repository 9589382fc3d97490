package dev.docket.internal.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** The schema as a whole: the migration version it is at, and the database clock. */
public record SchemaQueries(Jdbc jdbc, Statements sql) {

    /**
     * The schema version recorded by the migrator, 0 when Docket's tables do not exist. Neither
     * statement can fail on a missing table, so this is safe inside a caller's transaction.
     */
    public int version(Connection c) throws SQLException {
        boolean migrated = Jdbc.first(c, sql.get("schemaVersionTable"), Jdbc.NO_PARAMETERS, rs -> rs.getString("version_table") != null)
                .orElse(false);
        return migrated ? Jdbc.first(c, sql.get("schemaVersion"), Jdbc.NO_PARAMETERS, rs -> rs.getInt("version")).orElse(0) : 0;
    }

    /** The schema version, on a connection of its own. */
    public int version() throws SQLException {
        return jdbc.autoCommit(this::version);
    }

    /**
     * Which database {@code c} is on. Cannot fail on a healthy connection (it reads only catalogs and
     * functions every role may call, or skips them), so it is safe inside a caller's transaction.
     */
    public DatabaseIdentity identity(Connection c) throws SQLException {
        return Jdbc.first(c, sql.get("schemaDatabaseIdentity"), Jdbc.NO_PARAMETERS,
                rs -> new DatabaseIdentity(rs.getString("system_identifier"), rs.getLong("database_oid"),
                        rs.getString("database_name"), rs.getString("server_address"))).orElseThrow();
    }

    /** Which database this schema's pool connects to, on a connection of its own. */
    public DatabaseIdentity identity() throws SQLException {
        return jdbc.autoCommit(this::identity);
    }

    /** The database's clock. */
    public Instant now() throws SQLException {
        return jdbc.first(sql.get("schemaNow"), Jdbc.NO_PARAMETERS, rs -> Jdbc.instant(rs, "now")).orElseThrow();
    }
}
