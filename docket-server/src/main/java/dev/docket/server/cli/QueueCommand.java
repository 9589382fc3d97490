package dev.docket.server.cli;

import dev.docket.DocketAdmin;
import dev.docket.JobOptions;
import dev.docket.QueueSettings;
import dev.docket.TenantRunning;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code docket queue}: cluster-wide queue settings. */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Pauses, resumes and caps queues for the whole cluster (workers apply it within a second).",
        subcommands = {QueueCommand.ListCommand.class, QueueCommand.PauseCommand.class, QueueCommand.ResumeCommand.class,
                QueueCommand.LimitsCommand.class})
final class QueueCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        throw CommandFailure.usage("give a subcommand: `docket queue list`, `pause NAME`, `resume NAME` or `limits NAME`");
    }

    /** The library's rule ({@link JobOptions.Builder#queue}); its message shows the name without unprintable characters. */
    static String checkName(String name) {
        try {
            JobOptions.builder().queue(name);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage());
        }
        return name;
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists the queues with settings of their own, and the running jobs per tenant.")
    static final class ListCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        DatabaseOptions database;

        @Override
        public Integer call() {
            List<QueueSettings> queues;
            List<TenantRunning> running;
            try (Database db = database.openMigrated(2)) {
                DocketAdmin admin = db.docket().admin();
                queues = admin.queues();
                running = admin.runningByTenant();
            }
            PrintWriter out = spec.commandLine().getOut();
            if (queues.isEmpty()) {
                out.println("No queue has settings of its own: none paused, none capped.");
            } else {
                Table table = new Table("QUEUE", "PAUSED", "MAX RUNNING>", "PER TENANT>");
                queues.forEach(q -> table.row(q.queue(), q.paused() ? "yes" : "no", q.maxRunning(), q.tenantMaxRunning()));
                table.print(out);
            }
            if (!running.isEmpty()) {
                out.println();
                Table table = new Table("QUEUE", "TENANT", "RUNNING>");
                running.forEach(r -> table.row(r.queue(), r.tenant() == null ? "(none)" : r.tenant(), r.running()));
                table.print(out);
            }
            out.flush();
            return 0;
        }
    }

    /** Pause and resume: the same command but for the flag it sets. */
    abstract static class SetPausedCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        DatabaseOptions database;

        @Parameters(paramLabel = "NAME", description = "The queue.")
        String name;

        abstract boolean paused();

        @Override
        public Integer call() {
            checkName(name);
            try (Database db = database.openMigrated(2)) {
                if (paused()) {
                    db.docket().admin().pauseQueue(name);
                } else {
                    db.docket().admin().resumeQueue(name);
                }
            }
            spec.commandLine().getOut().println((paused() ? "paused " : "resumed ") + name);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true,
            description = "Stops every worker claiming from the queue; running jobs finish, enqueueing still works.")
    static final class PauseCommand extends SetPausedCommand {
        @Override
        boolean paused() {
            return true;
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true, description = "Resumes a paused queue; idle workers wake at once.")
    static final class ResumeCommand extends SetPausedCommand {
        @Override
        boolean paused() {
            return false;
        }
    }

    @Command(name = "limits", mixinStandardHelpOptions = true,
            description = {"Caps how many of the queue's jobs run at once across the cluster, in all and per tenant.",
                    "Without an option a cap is removed."})
    static final class LimitsCommand implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        DatabaseOptions database;

        @Parameters(paramLabel = "NAME", description = "The queue.")
        String name;

        @Option(names = "--max-running", paramLabel = "N", description = "At most N of the queue's jobs at once (0 or more).")
        Integer maxRunning;

        @Option(names = "--tenant-max-running", paramLabel = "N", description = "At most N jobs of one tenant at once (1 or more).")
        Integer tenantMaxRunning;

        @Override
        public Integer call() {
            checkName(name);
            if (maxRunning != null && maxRunning < 0) {
                throw CommandFailure.usage("--max-running must be 0 or more, was " + maxRunning);
            }
            if (tenantMaxRunning != null && tenantMaxRunning < 1) {
                throw CommandFailure.usage("--tenant-max-running must be 1 or more, was " + tenantMaxRunning);
            }
            try (Database db = database.openMigrated(2)) {
                db.docket().admin().setQueueLimits(name, maxRunning, tenantMaxRunning);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(name + ": max running " + (maxRunning == null ? "unlimited" : maxRunning) + ", per tenant "
                    + (tenantMaxRunning == null ? "unlimited" : tenantMaxRunning));
            out.flush();
            return 0;
        }
    }
}
