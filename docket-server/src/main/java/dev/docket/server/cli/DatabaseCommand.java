package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.DocketAdmin;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that works on a database: the {@code --database-url} and {@code --schema} options
 * ({@link DatabaseOptions}), the command's spec for where it prints, and the steps an operational
 * command takes: check its input, do its work on the migrated database, print the answer.
 */
abstract class DatabaseCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;

    /**
     * Runs {@code work} on a Docket over the migrated database (a pool of two connections: one
     * command needs no more) and closes it before returning what {@code work} returned.
     *
     * @throws CommandFailure when the database cannot be reached or its schema is not current
     */
    <T> T withDocket(Function<Docket, T> work) {
        try (Database db = database.openMigrated(2)) {
            return work.apply(db.docket());
        }
    }

    /** {@link #withDocket} for the operations of {@link DocketAdmin}. */
    <T> T withAdmin(Function<DocketAdmin, T> work) {
        return withDocket(docket -> work.apply(docket.admin()));
    }

    /** Writes the answer with {@code report} to the command's output and flushes it; returns 0, the exit status of success. */
    int print(Consumer<PrintWriter> report) {
        PrintWriter out = spec.commandLine().getOut();
        report.accept(out);
        out.flush();
        return 0;
    }

    /** Prints a one-line answer ({@link #print(Consumer)}). */
    int println(String line) {
        return print(out -> out.println(line));
    }

    /** Refuses an id below 1 as bad input: {@code a WHAT id is a positive whole number, was ID}. */
    static long checkId(String what, long id) {
        if (id <= 0) {
            throw CommandFailure.usage("a " + what + " id is a positive whole number, was " + id);
        }
        return id;
    }
}
