package dev.docket.server.cli;

import dev.docket.Docket;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;

/**
 * The {@code docket} command: the demo, the server, workers, and the operations an operator runs
 * from a shell. Every failure ends with one line on stderr, {@code docket: WHAT WENT WRONG}, and
 * exit status 2 for bad input (unknown option, malformed value, bad URL) or 1 for a failure at run
 * time (database unreachable, login refused, unknown job); never a stack trace
 * ({@code DOCKET_DEBUG=1} adds one after the line).
 */
@Command(name = "docket", mixinStandardHelpOptions = true, versionProvider = DocketCommand.Version.class,
        sortOptions = false, usageHelpAutoWidth = true,
        description = "A background-job queue that lives in PostgreSQL: demo, server, workers and operations.",
        subcommands = {DemoCommand.class, ServeCommand.class, WorkerCommand.class, MigrateCommand.class, QueueCommand.class,
                EnqueueCommand.class, JobCommand.class, StatsCommand.class, WorkersCommand.class, DlqCommand.class,
                DoctorCommand.class, SloCommand.class, RateLimitCommand.class, ScheduleCommand.class, BenchCommand.class,
                WorkflowCommand.class, HelpCommand.class},
        footerHeading = "%nExamples:%n",
        footer = {
                "  docket demo",
                "  docket migrate --database-url postgres://app:secret@db:5432/app",
                "  docket serve --host 0.0.0.0 --tokens-file /etc/docket/tokens",
                "  docket worker --queue default=16 --queue email=4",
                "  docket enqueue --kind send_email --payload '{\"to\":\"ada@example.com\"}'",
                "  docket schedule create nightly --cron '0 3 * * *' --zone Europe/Berlin --kind report",
                "  docket doctor",
                "  docket bench --short",
                "",
                "The database comes from --database-url or DOCKET_DATABASE_URL",
                "(postgres://, postgresql:// or jdbc:postgresql:// URLs).",
                "Exit status: 0 done, 1 failed at run time, 2 bad input."})
public final class DocketCommand implements Callable<Integer> {

    /** PgJDBC logs through java.util.logging to stderr; its failures reach the user as our one line instead. */
    private static final java.util.logging.Logger PGJDBC_LOG = java.util.logging.Logger.getLogger("org.postgresql");

    private final Function<String, String> env;

    /** The command as {@link #main} runs it, reading the process environment (as UTF-8, whatever the locale). */
    public DocketCommand() {
        this(RawArguments::env);
    }

    /** With another environment (tests pass {@code DOCKET_DATABASE_URL} and {@code DOCKET_TOKENS} this way). */
    DocketCommand(Function<String, String> env) {
        this.env = env;
    }

    public static void main(String[] args) {
        configureLogging();
        String[] exact;
        try {
            exact = RawArguments.exact(args);
        } catch (CommandFailure e) {
            System.err.println("docket: " + e.getMessage());
            System.exit(e.exitCode());
            return;
        }
        int status = commandLine(new DocketCommand()).execute(exact);
        System.exit(status);
    }

    /** The configured command line: one-line errors and exit statuses as described on the class. */
    static CommandLine commandLine(DocketCommand command) {
        CommandLine cl = new CommandLine(command);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        // --payload @FILE is ours to read: picocli's own @argument-files would splice the JSON into the arguments.
        cl.setExpandAtFiles(false);
        cl.setParameterExceptionHandler((e, args) -> {
            CommandLine failed = e.getCommandLine();
            PrintWriter err = failed.getErr();
            err.println("docket: " + ErrorMessages.oneLine(e.getMessage()) + " (see `"
                    + failed.getCommandSpec().qualifiedName() + " --help`)");
            err.flush();
            return failed.getCommandSpec().exitCodeOnInvalidInput();
        });
        cl.setExecutionExceptionHandler((e, failed, parseResult) -> {
            ErrorMessages.Described d = ErrorMessages.describe(e);
            PrintWriter err = failed.getErr();
            err.println("docket: " + d.message());
            String debug;
            try {
                debug = command.env("DOCKET_DEBUG");
            } catch (CommandFailure notUtf8) {
                debug = null;
            }
            if (debug != null && !debug.isEmpty() && !debug.equals("0")) {
                e.printStackTrace(err);
            }
            err.flush();
            return d.exitCode();
        });
        return cl;
    }

    /** An environment variable, or {@code null}. */
    String env(String name) {
        return env.apply(name);
    }

    @Override
    public Integer call() {
        throw CommandFailure.usage("no command given: try `docket demo`, or `docket --help` for all commands");
    }

    /**
     * Quiet by default: only warnings, and none from the connection pool (whose failures the
     * commands report in one line). Long-running commands turn Docket's own messages up with
     * {@link #verboseLogging()}. System properties set by the user win.
     */
    static void configureLogging() {
        defaultProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        defaultProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "off");
        defaultProperty("org.slf4j.simpleLogger.showDateTime", "true");
        defaultProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        defaultProperty("org.slf4j.simpleLogger.showThreadName", "false");
        defaultProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        defaultProperty("org.slf4j.simpleLogger.levelInBrackets", "true");
        PGJDBC_LOG.setLevel(java.util.logging.Level.OFF);
    }

    /** Docket's services log their start, stop and leadership at info: for serve, worker and demo. */
    static void verboseLogging() {
        defaultProperty("org.slf4j.simpleLogger.log.dev.docket", "info");
    }

    private static void defaultProperty(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** {@code docket --version}: this build, the schema version it needs, and the Java running it. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = "development build";
            try (InputStream in = DocketCommand.class.getResourceAsStream(
                    "/META-INF/maven/dev.docket/docket-server/pom.properties")) {
                if (in != null) {
                    Properties p = new Properties();
                    p.load(in);
                    version = p.getProperty("version", version);
                }
            } catch (IOException e) {
                // the development build it is
            }
            return new String[] {
                    "docket " + version,
                    "schema version " + Docket.supportedSchemaVersion() + ", Java " + Runtime.version()};
        }
    }
}
