package dev.docket.server.cli;

import dev.docket.JobExplanation;
import dev.docket.server.api.OperationsViews;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code docket job explain ID}: why the job is not running, or what it is doing. */
@Command(name = "explain", mixinStandardHelpOptions = true,
        description = {"Says why a job is not running, computed from the database now: scheduled for later, backing "
                + "off, its queue paused or at its cap, its tenant at its cap, no live worker for its queue or kind, "
                + "waiting for a newer worker version, every slot busy (with the backlog ahead), or running (where, "
                + "since when, lease until).", "The payload is never shown."})
final class JobExplainCommand extends DatabaseCommand {

    @Parameters(paramLabel = "ID", description = "The job id.")
    long id;

    @Option(names = "--json", description = "Print JSON (the shape of GET /api/jobs/{id}/explain) instead of text.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        checkId("job", id);
        JobExplanation e = withAdmin(admin -> admin.explain(id)).orElseThrow(() -> JobCommand.noJob(id, database.schema));
        if (json) {
            return println(JobCommand.JSON.writeValueAsString(OperationsViews.explanation(e)));
        }
        return print(out -> {
            out.println("job " + e.jobId() + " (" + e.kind() + " on queue " + e.queue() + ") is "
                    + e.state().name().toLowerCase(java.util.Locale.ROOT) + ":");
            e.reasons().forEach(r -> out.println("  " + r.code().name().toLowerCase(java.util.Locale.ROOT) + ": "
                    + r.message()));
        });
    }
}
