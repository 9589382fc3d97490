package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.internal.db.DatabaseUrl;
import java.util.function.Consumer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code --database-url} and {@code --schema}, shared by every command that talks to the database. */
final class DatabaseOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--database-url", paramLabel = "URL", order = 100,
            description = "PostgreSQL to use: postgres://user:pass@host:5432/db, postgresql://... or "
                    + "jdbc:postgresql://... (user and password may also be query parameters). "
                    + "Default: the DOCKET_DATABASE_URL environment variable.")
    String url;

    @Option(names = "--schema", paramLabel = "NAME", defaultValue = "docket", order = 101,
            description = "The schema holding Docket's tables (default: ${DEFAULT-VALUE}).")
    String schema;

    /**
     * The database URL from the option, else from {@code DOCKET_DATABASE_URL}.
     *
     * @throws CommandFailure (a usage error) when there is none, or saying what a valid one looks like;
     *                        the message never contains the password
     */
    DatabaseUrl databaseUrl() {
        String given = url;
        if (given == null) {
            given = root().env("DOCKET_DATABASE_URL");
        }
        if (given == null || given.isBlank()) {
            throw CommandFailure.usage("no database given: pass --database-url postgres://user:pass@host:5432/db "
                    + "or set DOCKET_DATABASE_URL");
        }
        try {
            return DatabaseUrl.parse(given);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage("--database-url is not a usable PostgreSQL URL: " + e.getMessage()
                    + " (expected postgres://user:pass@host:5432/db or jdbc:postgresql://host:5432/db)");
        }
    }

    /** Connects (a pool of {@code poolSize}) and builds a Docket on the schema. */
    Database open(int poolSize, Consumer<Docket.Builder> settings) {
        DatabaseUrl parsed = databaseUrl();
        return Database.open(parsed, schema, poolSize, "docket-" + mixee.name(), settings);
    }

    /** Connects and checks that the schema is migrated: what the operational commands need. */
    Database openMigrated(int poolSize) {
        Database db = open(poolSize, b -> { });
        try {
            db.requireCurrentSchema();
            return db;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    DocketCommand root() {
        return (DocketCommand) mixee.root().userObject();
    }
}
