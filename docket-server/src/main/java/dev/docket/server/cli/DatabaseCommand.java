package dev.docket.server.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that works on a database: the {@code --database-url} and {@code --schema} options
 * ({@link DatabaseOptions}), and the command's spec for where it prints.
 */
abstract class DatabaseCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    DatabaseOptions database;
}
