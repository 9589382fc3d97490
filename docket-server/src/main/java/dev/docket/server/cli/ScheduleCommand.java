package dev.docket.server.cli;

import dev.docket.DocketAdmin;
import dev.docket.ScheduleDefinition;
import dev.docket.ScheduleInfo;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code docket schedule list | create | edit | pause | resume | delete}: periodic jobs stored in the database,
 * applied by the maintenance leader from its next round, beside the ones declared in code (listed, read-only).
 */
@Command(name = "schedule", mixinStandardHelpOptions = true,
        description = {"Lists, creates, edits, pauses, resumes and deletes periodic jobs stored in the database. The",
                "maintenance leader applies a change from its next round, with the guarantee of a schedule declared",
                "in code: one job per slot across the cluster, however leadership moves. Schedules declared in code",
                "are listed too, and cannot be changed here."},
        subcommands = {ScheduleCommand.ListCommand.class, ScheduleCommand.CreateCommand.class,
                ScheduleCommand.EditCommand.class, ScheduleCommand.PauseCommand.class, ScheduleCommand.ResumeCommand.class,
                ScheduleCommand.DeleteCommand.class})
final class ScheduleCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        throw CommandFailure.usage("give a subcommand: `docket schedule list`, `create NAME --cron EXPR --kind KIND`, "
                + "`edit NAME ...`, `pause NAME`, `resume NAME` or `delete NAME`");
    }

    /** {@code --by NAME}: who changes it, as for {@code dlq repair}. */
    static final class ChangerOption {

        @Option(names = "--by", paramLabel = "NAME", order = 50,
                description = "Who changes it, for the record (default: the operating-system user).")
        String by;

        /** As recorded with the schedule: the name given, else the operating-system user, marked as the CLI's. */
        String changedBy() {
            String name = by != null ? by : System.getProperty("user.name", "unknown");
            return name + " (cli)";
        }
    }

    /** The options of a definition; on an edit, those not given keep the schedule's values. */
    static final class DefinitionOptions {

        @Option(names = "--zone", paramLabel = "ZONE", order = 3,
                description = "The time zone the cron is read in: Europe/Berlin, UTC, +02:00 (default UTC).")
        String zone;

        @Option(names = "--payload", paramLabel = "JSON", order = 4,
                description = "The payload of every job, as JSON; @FILE reads it from a file (default {}).")
        String payload;

        @Option(names = "--queue", paramLabel = "NAME", order = 5, description = "The jobs' queue (default: the kind's).")
        String queue;

        @Option(names = "--priority", paramLabel = "N", order = 6, converter = Converters.PriorityConverter.class,
                description = "The jobs' priority, smaller first (default: the kind's).")
        Integer priority;

        @Option(names = "--max-attempts", paramLabel = "N", order = 7, converter = Converters.MaxAttemptsConverter.class,
                description = "The jobs' attempts (default: the kind's retry policy).")
        Integer maxAttempts;

        @Option(names = "--catch-up", paramLabel = "POLICY", order = 8,
                description = "Missed slots: all (every one, 10 per round; the default) or latest (only the newest).")
        ScheduleDefinition.CatchUp catchUp;

        ScheduleDefinition apply(ScheduleDefinition d) {
            ScheduleDefinition out = d;
            if (zone != null) {
                out = out.withZone(ScheduleDefinition.zone(zone));
            }
            if (payload != null) {
                out = out.withPayloadJson(DlqTriageCommands.jsonArgument("--payload", payload));
            }
            if (queue != null) {
                out = out.withQueue(QueueCommand.checkName(queue));
            }
            if (priority != null) {
                out = out.withPriority(priority);
            }
            if (maxAttempts != null) {
                out = out.withMaxAttempts(maxAttempts);
            }
            if (catchUp != null) {
                out = out.withCatchUp(catchUp);
            }
            return out;
        }
    }

    /** A schedule change through the admin; a refusal (code-declared, name taken) is a failure, not a crash. */
    abstract static class ChangeCommand extends DatabaseCommand {

        <T> T change(Function<DocketAdmin, T> work) {
            try {
                return withAdmin(work);
            } catch (IllegalStateException e) {
                throw CommandFailure.failed(e.getMessage());
            }
        }

        int report(String did, ScheduleInfo s) {
            return print(out -> {
                out.println(did + " schedule " + s.name() + ": " + s.cron() + " (" + s.zone().getId() + "), kind " + s.kind()
                        + (s.paused() ? ", paused" : ""));
                warnIfUnserved(s);
            });
        }

        void warnIfUnserved(ScheduleInfo s) {
            if (!s.kindServed()) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("docket: warning: no live worker serves kind " + s.kind() + "; its jobs will wait until one does");
                err.flush();
            }
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "Lists every schedule, stored (runtime) and declared in code (code), with its next slot.")
    static final class ListCommand extends DatabaseCommand {

        @Override
        public Integer call() {
            List<ScheduleInfo> schedules = withAdmin(DocketAdmin::schedules);
            if (schedules.isEmpty()) {
                return println("No schedule: `docket schedule create NAME --cron '0 3 * * *' --kind KIND`.");
            }
            Table table = new Table("NAME", "ORIGIN", "CRON", "ZONE", "KIND", "STATE", "NEXT SLOT", "CHANGED BY", "CHANGED AT");
            Instant now = Instant.now();
            schedules.forEach(s -> table.row(s.name(), s.origin().name().toLowerCase(Locale.ROOT), s.cron(), s.zone().getId(),
                    s.kind(), s.paused() ? "paused" : s.kindServed() ? "active" : "active (no worker)",
                    s.paused() ? "-" : s.nextSlots(now, 1).stream().findFirst().map(ZonedDateTime::toString).orElse("never"),
                    s.updatedBy(), s.updatedAt()));
            return print(table::print);
        }
    }

    @Command(name = "create", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Stores a schedule; its first slot is the first after now. A kind no live worker serves is",
                    "accepted with a warning: its jobs wait for a worker."})
    static final class CreateCommand extends ChangeCommand {

        @Parameters(paramLabel = "NAME", description = "1 to 128 of A-Z a-z 0-9 _ . : -")
        String name;

        @Option(names = "--cron", paramLabel = "EXPR", required = true, order = 1,
                description = "Five fields (minute hour day month weekday) or six with seconds first.")
        String cron;

        @Option(names = "--kind", paramLabel = "KIND", required = true, order = 2, description = "The kind of the jobs.")
        String kind;

        @Mixin
        DefinitionOptions options = new DefinitionOptions();

        @Mixin
        ChangerOption changer;

        @Override
        public Integer call() {
            ScheduleDefinition d = options.apply(ScheduleDefinition.of(name, cron, kind));
            return report("created", change(admin -> admin.createSchedule(d, changer.changedBy())));
        }
    }

    @Command(name = "edit", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Changes a stored schedule: the options given replace its values, the others stay. A new",
                    "cron or zone starts again at the first slot after now."})
    static final class EditCommand extends ChangeCommand {

        @Parameters(paramLabel = "NAME", description = "The schedule.")
        String name;

        @Option(names = "--cron", paramLabel = "EXPR", order = 1, description = "A new cron expression.")
        String cron;

        @Option(names = "--kind", paramLabel = "KIND", order = 2, description = "A new kind.")
        String kind;

        @Mixin
        DefinitionOptions options = new DefinitionOptions();

        @Mixin
        ChangerOption changer;

        @Override
        public Integer call() {
            Optional<ScheduleInfo> edited = change(admin -> {
                ScheduleInfo s = admin.schedule(name).orElseThrow(() -> CommandFailure.failed("no schedule named " + name));
                ScheduleDefinition current = new ScheduleDefinition(s.name(), cron != null ? cron : s.cron(), s.zone(),
                        kind != null ? kind : s.kind(), s.payloadJson(), s.queue(), s.priority(), s.maxAttempts(), s.catchUp());
                return admin.editSchedule(options.apply(current), changer.changedBy());
            });
            return report("edited", edited.orElseThrow(() -> CommandFailure.failed("no schedule named " + name)));
        }
    }

    /** A change to the one schedule named on the command line, recorded with who made it. */
    abstract static class NamedChangeCommand extends ChangeCommand {

        @Parameters(paramLabel = "NAME", description = "The schedule.")
        String name;

        @Mixin
        ChangerOption changer;

        /** Reports the schedule as {@code work} left it; no schedule of that name is a failure. */
        int reportChange(String did, Function<DocketAdmin, Optional<ScheduleInfo>> work) {
            return report(did, change(work).orElseThrow(() -> CommandFailure.failed("no schedule named " + name)));
        }
    }

    @Command(name = "pause", mixinStandardHelpOptions = true,
            description = "Pauses a stored schedule: the leader enqueues none of its slots from its next round.")
    static final class PauseCommand extends NamedChangeCommand {

        @Override
        public Integer call() {
            return reportChange("paused", admin -> admin.pauseSchedule(name, changer.changedBy()));
        }
    }

    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = "Resumes a paused schedule at its first slot after now (the paused slots are not caught up).")
    static final class ResumeCommand extends NamedChangeCommand {

        @Override
        public Integer call() {
            return reportChange("resumed", admin -> admin.resumeSchedule(name, changer.changedBy()));
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true,
            description = "Deletes a stored schedule (the jobs it enqueued stay).")
    static final class DeleteCommand extends NamedChangeCommand {

        @Override
        public Integer call() {
            if (!change(admin -> admin.deleteSchedule(name, changer.changedBy()))) {
                throw CommandFailure.failed("no schedule named " + name);
            }
            return println("deleted schedule " + name);
        }
    }
}
