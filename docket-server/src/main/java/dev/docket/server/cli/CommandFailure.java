package dev.docket.server.cli;

import picocli.CommandLine.ExitCode;

/**
 * Ends a command with one line on stderr ({@code docket: MESSAGE}) and an exit status: 2 for input
 * the user can fix (a usage error), 1 for a failure at run time (database unreachable, job unknown).
 */
final class CommandFailure extends RuntimeException {

    private final int exitCode;

    private CommandFailure(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    /** Bad input: a malformed option value, a bad URL, a payload that is not JSON. Exit status 2. */
    static CommandFailure usage(String message) {
        return new CommandFailure(ExitCode.USAGE, message);
    }

    /** The command could not do its work: the database refused, a job does not exist. Exit status 1. */
    static CommandFailure failed(String message) {
        return new CommandFailure(ExitCode.SOFTWARE, message);
    }

    /** A failure with its own exit status, for a command that documents one ({@code docket doctor}'s 3). */
    static CommandFailure withStatus(int exitCode, String message) {
        return new CommandFailure(exitCode, message);
    }

    int exitCode() {
        return exitCode;
    }
}
