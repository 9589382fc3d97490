package dev.docket.server.cli;

import dev.docket.DocketAdmin;
import dev.docket.WorkflowInfo;
import dev.docket.server.api.ResponseViews;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code docket workflow show|cancel|retry ID}: a workflow's graph and states, and what an operator does to it. */
@Command(name = "workflow", mixinStandardHelpOptions = true,
        description = {"Shows a workflow's steps with their states, cancels what is not finished, or retries its "
                + "failed steps (dead steps replayed, cancelled steps enqueued again)."},
        subcommands = {WorkflowCommand.ShowCommand.class, WorkflowCommand.CancelCommand.class,
                WorkflowCommand.RetryCommand.class})
final class WorkflowCommand implements java.util.concurrent.Callable<Integer> {

    @Override
    public Integer call() {
        throw CommandFailure.usage("give a subcommand: `docket workflow show ID`, `cancel ID` or `retry ID`");
    }

    /** What the three subcommands share: the workflow's id, checked, and a database. */
    abstract static class WorkflowIdCommand extends DatabaseCommand {

        @Parameters(paramLabel = "ID", description = "The workflow id (enqueueWorkflow's answer).")
        long id;

        @Override
        public Integer call() {
            checkId("workflow", id);
            return withAdmin(admin -> {
                if (admin.workflow(id).isEmpty()) {
                    throw CommandFailure.failed("no workflow " + id + " in schema " + database.schema);
                }
                return print(out -> run(admin, out));
            });
        }

        abstract void run(DocketAdmin admin, PrintWriter out);
    }

    @Command(name = "show", mixinStandardHelpOptions = true, description = "Prints the workflow's steps in dependency order.")
    static final class ShowCommand extends WorkflowIdCommand {
        @Override
        void run(DocketAdmin admin, PrintWriter out) {
            WorkflowInfo w = admin.workflow(id).orElseThrow();
            out.println("workflow " + w.id() + " '" + w.name() + "': " + w.status().name().toLowerCase(Locale.ROOT)
                    + " (created " + w.createdAt() + ")");
            Table table = new Table("STEP", "JOB>", "KIND", "STATE", "AFTER");
            w.steps().forEach(s -> table.row(s.name(), s.jobId(), s.kind() == null ? "-" : s.kind(),
                    s.state() == null ? "gone" : ResponseViews.state(s.state()), String.join(",", s.after())));
            table.print(out);
        }
    }

    @Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancels every step not finished.")
    static final class CancelCommand extends WorkflowIdCommand {
        @Override
        void run(DocketAdmin admin, PrintWriter out) {
            out.println("cancelled " + admin.cancelWorkflow(id) + " step(s) of workflow " + id);
        }
    }

    @Command(name = "retry", mixinStandardHelpOptions = true,
            description = "Re-runs the failed steps: dead ones replayed, cancelled ones enqueued again.")
    static final class RetryCommand extends WorkflowIdCommand {
        @Override
        void run(DocketAdmin admin, PrintWriter out) {
            out.println("re-ran " + admin.retryWorkflow(id) + " step(s) of workflow " + id);
        }
    }
}
