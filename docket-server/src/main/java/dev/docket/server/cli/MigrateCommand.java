package dev.docket.server.cli;

import dev.docket.Docket;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket migrate}: creates or upgrades Docket's tables, or prints their SQL. */
@Command(name = "migrate", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Creates or upgrades Docket's tables in the schema to the version this docket needs.",
                "Safe to run on many nodes at once (they take turns on an advisory lock); does nothing when "
                        + "the schema is current.",
                "With --print, writes the whole schema as SQL to stdout instead, for teams that apply "
                        + "migrations with Flyway or Liquibase; that touches no database."})
final class MigrateCommand extends DatabaseCommand {

    @Option(names = "--print", order = 1, description = "Print the migration SQL instead of applying it (needs no database).")
    boolean print;

    @Override
    public Integer call() {
        if (print) {
            try (Docket docket = Docket.builder(new UnopenedDataSource()).schema(database.schema).build()) {
                String sql = docket.migrationSql();
                return print(out -> out.print(sql));
            }
        }
        try (Database db = database.open(2, b -> { })) {
            Docket docket = db.docket();
            int applied = docket.migrate();
            int version = docket.schemaVersion();
            return println(applied == 0
                    ? String.format("Schema %s in %s is already at version %d; nothing to do.", docket.schema(),
                            db.url().display(), version)
                    : String.format("Applied %d migration%s: schema %s in %s is at version %d.", applied,
                            applied == 1 ? "" : "s", docket.schema(), db.url().display(), version));
        }
    }
}
