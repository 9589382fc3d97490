package dev.docket.server.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code docket} command line as {@code main} builds it, run in-process with an environment of the
 * test's choosing and its output captured: what the CLI tests drive.
 */
final class CliRunner {

    /** What one run printed, and its exit status. */
    record Run(int exit, String out, String err) {
    }

    final CommandLine commandLine;
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    /** A command line that reads environment variables from {@code env} (it may change between runs). */
    CliRunner(Map<String, String> env) {
        commandLine = DocketCommand.commandLine(new DocketCommand(env::get));
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
    }

    /** Runs once on a fresh command line. */
    /** Runs {@code args} against {@code schema} of the database at {@code jdbcUrl}, with no environment. */
    static Run against(String jdbcUrl, String schema, String... args) {
        String[] all = Arrays.copyOf(args, args.length + 4);
        System.arraycopy(new String[] {"--database-url", jdbcUrl, "--schema", schema}, 0, all, args.length, 4);
        return run(Map.of(), all);
    }

    static Run run(Map<String, String> env, String... args) {
        return new CliRunner(env).run(args);
    }

    /** Runs {@code args}; the output is everything printed on this command line so far. */
    Run run(String... args) {
        int exit = commandLine.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** The subcommand object, to stop a long-running command from the test. */
    <T> T command(String name) {
        return commandLine.getSubcommands().get(name).getCommand();
    }
}
