package dev.docket.server.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.docket.JobInfo;
import dev.docket.internal.db.DatabaseUrl;
import dev.docket.internal.rules.TextRules;
import dev.docket.server.api.ResponseViews;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code docket job ID}: one job as JSON, payload, recorded output, error history, wait, signals, progress and logs included. */
@Command(name = "job", mixinStandardHelpOptions = true, subcommands = {JobExplainCommand.class, JobSignalCommand.class,
        JobEditCommand.class, JobRunNowCommand.class},
        description = {"Prints one job as JSON, wherever it is (waiting, running, completed, cancelled or dead), "
                + "with its payload, the output its handler recorded (if any), its error history, what it waits for "
                + "(signalWait), the signals sent to it, its progress and its log lines per attempt.",
                "The payload and the output are shown: whoever runs this command can read the database anyway."})
final class JobCommand extends DatabaseCommand {

    static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(SerializationFeature.INDENT_OUTPUT);

    /** Optional to picocli, so that {@code docket job explain ID} is not refused for want of the job's own ID. */
    @Parameters(paramLabel = "ID", arity = "0..1", description = "The job id; DATABASE/ID for a job of a database "
            + "named with --database NAME=URL (ids are per database).")
    String given;

    @Override
    public Integer call() throws Exception {
        if (given == null) {
            throw CommandFailure.usage("give a job id: `docket job ID`, `docket job explain ID` or `docket job signal ID NAME`");
        }
        int slash = given.indexOf('/');
        long id = parseId(slash < 0 ? given : given.substring(slash + 1));
        JobInfo job;
        if (slash < 0 && !database.several()) {
            job = withDocket(docket -> docket.job(id)).orElseThrow(() -> noJob(id, database.schema));
        } else {
            String name = slash < 0 ? DatabaseOptions.DEFAULT_NAME : given.substring(0, slash);
            DatabaseUrl url = database.namedUrls().get(name);
            if (url == null) {
                throw CommandFailure.usage("no database named " + TextRules.describe(name) + "; databases: "
                        + database.namedUrls().keySet());
            }
            try (Database db = Database.open(url, database.schema, 2, "docket-job", database.payloadEncryption())) {
                db.requireCurrentSchema();
                job = db.docket().job(id).orElseThrow(() -> noJob(id, database.schema + " of database " + name));
            }
        }
        Object output = job.output() == null ? null : JSON.readTree(job.output());
        // An encrypted payload this process has no key for is null: shown as payloadEncrypted, never as ciphertext.
        Object payload = job.payload() == null ? null : JSON.readTree(job.payload());
        return println(JSON.writeValueAsString(ResponseViews.job(job, true).withShown(payload, output)));
    }

    private static long parseId(String text) {
        long id;
        try {
            id = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw CommandFailure.usage("a job id is a positive whole number, or DATABASE/ID, was "
                    + TextRules.describe(text));
        }
        return checkId("job", id);
    }

    /** The failure for a job id the schema does not hold (any more). */
    static CommandFailure noJob(long id, String schema) {
        return CommandFailure.failed("no job " + id + " in schema " + schema + " (it may have been pruned after its retention)");
    }
}
