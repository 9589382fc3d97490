package dev.docket.server.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code docket job run-now ID [--by NAME]}: makes a job that has not started due now. */
@Command(name = "run-now", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Makes a scheduled job due now (a ready job keeps its place), recorded in its metadata "
                + "(docket.edits) with who did it. A job that has started, finished or waits (for a signal, its "
                + "dependencies or its sequence) is refused.",
                "Exit status: 0 done, 1 the job is unknown, has started, finished or waits, 2 bad input."})
final class JobRunNowCommand extends DatabaseCommand {

    @Parameters(index = "0", paramLabel = "ID", description = "The job id.")
    long id;

    @Option(names = "--by", paramLabel = "NAME", description = "Who runs it now, for the record (default: the operating-system user).")
    String by;

    @Override
    public Integer call() {
        checkId("job", id);
        String editedBy = (by != null ? by : System.getProperty("user.name", "unknown")) + " (cli)";
        return JobEditCommand.report(id, withDocket(docket -> docket.admin().runNow(id, editedBy)), "due now", this);
    }
}
