package dev.docket.server.cli;

import dev.docket.DocketException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.sql.SQLException;
import java.util.Locale;
import picocli.CommandLine.ExitCode;

/**
 * Turns any exception a command ends with into one line for stderr and an exit status. The line
 * says what went wrong in the user's terms; it never holds a stack trace, and never a password.
 */
final class ErrorMessages {

    /** One line and an exit status. */
    record Described(String message, int exitCode) {
    }

    private ErrorMessages() {
    }

    static Described describe(Throwable e) {
        if (e instanceof CommandFailure f) {
            return new Described(oneLine(f.getMessage()), f.exitCode());
        }
        if (e instanceof IllegalArgumentException) {
            return new Described(oneLine(e.getMessage()), ExitCode.USAGE);
        }
        if (e instanceof DocketException) {
            return new Described(oneLine(e.getMessage()), ExitCode.SOFTWARE);
        }
        SQLException sql = find(e, SQLException.class);
        if (sql != null) {
            return new Described("database error: " + connectionReason(e), ExitCode.SOFTWARE);
        }
        return new Described("unexpected " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + oneLine(e.getMessage()))
                + " (set DOCKET_DEBUG=1 to see the stack trace)", ExitCode.SOFTWARE);
    }

    /**
     * Why a connection attempt failed, from the most telling exception in the chain: an unknown
     * host, a refused or timed-out connection, or the server's own message (wrong password,
     * unknown database or role).
     */
    static String connectionReason(Throwable e) {
        UnknownHostException unknownHost = find(e, UnknownHostException.class);
        if (unknownHost != null) {
            return "unknown host " + unknownHost.getMessage();
        }
        SQLException sql = find(e, SQLException.class);
        String sqlMessage = sql == null ? null : serverMessage(sql.getMessage());
        boolean generic = sqlMessage == null || sqlMessage.startsWith("The connection attempt failed");
        if (generic) {
            if (find(e, SocketTimeoutException.class) != null) {
                return "no answer within the connect timeout (is the host reachable and the port open?)";
            }
            if (find(e, NoRouteToHostException.class) != null) {
                return "no route to host";
            }
            if (find(e, ConnectException.class) != null) {
                return "connection refused (is PostgreSQL running on that host and port?)";
            }
        }
        if (sqlMessage != null) {
            return sqlMessage;
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + oneLine(e.getMessage()));
    }

    /** The first line of a server message, without PostgreSQL's severity prefix. */
    private static String serverMessage(String message) {
        if (message == null) {
            return null;
        }
        String line = oneLine(message);
        for (String prefix : new String[] {"FATAL: ", "ERROR: "}) {
            if (line.startsWith(prefix)) {
                line = line.substring(prefix.length());
            }
        }
        return line;
    }

    /** Why reading or writing a file failed, in words (not the exception's class name). */
    static String io(java.io.IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.charset.CharacterCodingException) {
            return "not UTF-8 text";
        }
        return e.getMessage() == null ? "cannot read it" : oneLine(e.getMessage());
    }

    static String oneLine(String message) {
        if (message == null || message.isBlank()) {
            return "failed";
        }
        String line = message.strip();
        int nl = line.indexOf('\n');
        if (nl >= 0) {
            line = line.substring(0, nl).strip();
        }
        if (line.toLowerCase(Locale.ROOT).startsWith("docket: ")) {
            line = line.substring("docket: ".length());
        }
        return line.replaceAll("\\p{Cntrl}", " ");
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
