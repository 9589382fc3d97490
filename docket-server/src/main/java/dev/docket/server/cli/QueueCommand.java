package dev.docket.server.cli;

import dev.docket.DocketAdmin;
import dev.docket.JobOptions;
import dev.docket.QueueSettings;
import dev.docket.TenantRunning;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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

    /**
     * Refuses a queue nobody has heard of ({@link DocketAdmin#knowsQueue}) unless {@code create}: a
     * misspelt name must not silently make a new queue.
     */
    static void checkKnown(DocketAdmin admin, String name, boolean create) {
        if (!create && !admin.knowsQueue(name)) {
            throw CommandFailure.failed("no queue " + name + " (no settings and no jobs); add --create to create it");
        }
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
    static final class ListCommand extends DatabaseCommand {

        @Override
        public Integer call() {
            return withAdmin(admin -> print(out -> {
                List<QueueSettings> queues = admin.queues();
                List<TenantRunning> running = admin.runningByTenant();
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
            }));
        }
    }

    /** Pause and resume: the same command but for the flag it sets. */
    abstract static class SetPausedCommand extends DatabaseCommand {

        @Parameters(paramLabel = "NAME", description = "The queue.")
        String name;

        @Option(names = "--create", description = "Create the queue's settings if no queue of this name is known "
                + "(without it, an unknown name fails: it is usually a typo).")
        boolean create;

        abstract boolean paused();

        @Override
        public Integer call() {
            checkName(name);
            return withAdmin(admin -> {
                checkKnown(admin, name, create);
                if (paused()) {
                    admin.pauseQueue(name);
                } else {
                    admin.resumeQueue(name);
                }
                return println((paused() ? "paused " : "resumed ") + name);
            });
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

    @Command(name = "limits", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Shows or sets how many of the queue's jobs run at once across the cluster, in all and per tenant.",
                    "Without an option it shows the caps. A cap you do not give keeps its value; --clear removes both",
                    "first (so `--clear --max-running 5` leaves only that cap)."})
    static final class LimitsCommand extends DatabaseCommand {

        @Parameters(paramLabel = "NAME", description = "The queue.")
        String name;

        @Option(names = "--max-running", paramLabel = "N", order = 1,
                description = "At most N of the queue's jobs at once (0 or more).")
        Integer maxRunning;

        @Option(names = "--tenant-max-running", paramLabel = "N", order = 2,
                description = "At most N jobs of one tenant at once (1 or more).")
        Integer tenantMaxRunning;

        @Option(names = "--clear", order = 3, description = "Remove the caps (both, unless one is set in the same command).")
        boolean clear;

        @Option(names = "--create", order = 4, description = "Create the queue's settings if no queue of this name is known.")
        boolean create;

        @Override
        public Integer call() {
            checkName(name);
            if (maxRunning != null && maxRunning < 0) {
                throw CommandFailure.usage("--max-running must be 0 or more, was " + maxRunning);
            }
            if (tenantMaxRunning != null && tenantMaxRunning < 1) {
                throw CommandFailure.usage("--tenant-max-running must be 1 or more, was " + tenantMaxRunning);
            }
            boolean changes = clear || maxRunning != null || tenantMaxRunning != null;
            QueueSettings current = withAdmin(admin -> {
                checkKnown(admin, name, create && changes);
                QueueSettings before = settings(admin);
                if (!changes) {
                    return before;
                }
                Integer max = maxRunning != null ? maxRunning : clear || before == null ? null : before.maxRunning();
                Integer perTenant = tenantMaxRunning != null ? tenantMaxRunning
                        : clear || before == null ? null : before.tenantMaxRunning();
                admin.setQueueLimits(name, max, perTenant);
                return settings(admin);
            });
            return println(name + ": max running " + cap(current == null ? null : current.maxRunning()) + ", per tenant "
                    + cap(current == null ? null : current.tenantMaxRunning()));
        }

        private QueueSettings settings(DocketAdmin admin) {
            return admin.queues().stream().filter(q -> q.queue().equals(name)).findFirst().orElse(null);
        }

        private static String cap(Integer value) {
            return value == null ? "unlimited" : String.valueOf(value);
        }
    }
}
