package dev.docket.server.cli;

import dev.docket.JobEdit;
import dev.docket.JobEditResult;
import java.time.Instant;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code docket job edit ID [--payload JSON] [--run-at INSTANT | --run-now] [--priority N] [--queue NAME] [--by NAME]}:
 * changes a job that has not started.
 */
@Command(name = "edit", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Changes a job that has not started (scheduled or ready; a waiting job's payload and priority "
                + "only), in one statement: a job a worker claims meanwhile keeps its old values and the edit is refused. "
                + "Each value follows the enqueue rules. Who edited it and what changed is recorded in the job's metadata "
                + "(docket.edits; never the payload).",
                "Exit status: 0 edited, 1 the job is unknown, has started or finished (nothing changed), 2 bad input."})
final class JobEditCommand extends DatabaseCommand {

    @Parameters(index = "0", paramLabel = "ID", description = "The job id.")
    long id;

    @Option(names = "--payload", paramLabel = "JSON", order = 1,
            description = "The new payload as JSON; @FILE reads it from a file.")
    String payload;

    @Option(names = "--run-at", paramLabel = "INSTANT", order = 2, converter = Converters.InstantConverter.class,
            description = "The new run time, an ISO-8601 instant such as 2026-01-31T12:00:00Z.")
    Instant runAt;

    @Option(names = "--run-now", order = 3, description = "Make it due now (instead of --run-at).")
    boolean runNow;

    @Option(names = "--priority", paramLabel = "N", order = 4, converter = Converters.PriorityConverter.class, description = "The new priority, -32768 to 32767.")
    Integer priority;

    @Option(names = "--queue", paramLabel = "NAME", order = 5, description = "The new queue.")
    String queue;

    @Option(names = "--by", paramLabel = "NAME", order = 6,
            description = "Who edits it, for the record (default: the operating-system user).")
    String by;

    @Override
    public Integer call() {
        checkId("job", id);
        if (runAt != null && runNow) {
            throw CommandFailure.usage("give --run-at or --run-now, not both");
        }
        JobEdit edit;
        try {
            JobEdit.Builder b = JobEdit.builder();
            if (payload != null) {
                b.payload(DlqTriageCommands.jsonArgument("--payload", payload));
            }
            if (runAt != null) {
                b.runAt(runAt);
            }
            if (runNow) {
                b.runNow();
            }
            if (priority != null) {
                b.priority(priority);
            }
            if (queue != null) {
                b.queue(queue);
            }
            edit = b.build();
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage());
        }
        String editedBy = (by != null ? by : System.getProperty("user.name", "unknown")) + " (cli)";
        return report(id, withDocket(docket -> docket.admin().editJob(id, edit, editedBy)), "edited", this);
    }

    /** Prints an applied edit, or fails with why it was not applied. */
    static int report(long id, JobEditResult result, String what, DatabaseCommand command) {
        return switch (result.outcome()) {
            case EDITED -> command.println("job " + id + ": " + what + "; it is "
                    + result.state().name().toLowerCase(Locale.ROOT));
            case NO_SUCH_JOB -> throw JobCommand.noJob(id, command.database.schema);
            case NOT_EDITABLE -> throw CommandFailure.failed(result.message());
        };
    }
}
