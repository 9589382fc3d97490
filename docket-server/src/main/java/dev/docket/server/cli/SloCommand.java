package dev.docket.server.cli;

import dev.docket.DocketAdmin;
import dev.docket.Slo;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket slo}: the service-level objectives doctor checks and the server exports as gauges. */
@Command(name = "slo", mixinStandardHelpOptions = true,
        description = {"Lists, sets and clears service-level objectives: per queue the lag (how long its oldest ready "
                + "job may wait), per kind the pickup p99 (due to claimed). Doctor compares with them; the server "
                + "exports them as docket_queue_lag_slo_seconds{queue} and docket_kind_pickup_p99_slo_seconds{kind}."},
        subcommands = {SloCommand.ListCommand.class, SloCommand.SetCommand.class, SloCommand.ClearCommand.class})
final class SloCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        throw CommandFailure.usage("give a subcommand: `docket slo list`, `set --queue NAME --lag D`, "
                + "`set --kind KIND --pickup-p99 D` or `clear --queue NAME|--kind KIND`");
    }

    /** Exactly one of a queue and a kind. */
    static final class Target {
        @Option(names = "--queue", paramLabel = "NAME", required = true, description = "A queue (its lag objective).")
        String queue;

        @Option(names = "--kind", paramLabel = "KIND", required = true, description = "A kind (its pickup p99 objective).")
        String kind;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists every objective set.")
    static final class ListCommand extends DatabaseCommand {

        @Override
        public Integer call() {
            List<Slo> slos = withAdmin(DocketAdmin::slos);
            if (slos.isEmpty()) {
                return println("No SLO is set: `docket slo set --queue NAME --lag 30s` or `--kind KIND --pickup-p99 2s`.");
            }
            Table table = new Table("TARGET", "NAME", "OBJECTIVE>", "UPDATED");
            slos.forEach(s -> table.row(s.target().name().toLowerCase(Locale.ROOT), s.name(),
                    Converters.format(s.objective()), s.updatedAt()));
            return print(table::print);
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Sets a queue's lag objective (--queue NAME --lag D) or a kind's pickup p99 objective "
                    + "(--kind KIND --pickup-p99 D); D is more than 0 and at most 30d."})
    static final class SetCommand extends TargetCommand {

        @Option(names = "--lag", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
                description = "The queue's lag objective: 500ms, 30s, 5m, 2h, 1d or ISO-8601.")
        Duration lag;

        @Option(names = "--pickup-p99", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
                description = "The kind's pickup p99 objective.")
        Duration pickupP99;

        @Override
        public Integer call() {
            Duration objective = target.queue != null ? required(lag, "--lag", pickupP99, "--pickup-p99", "--queue")
                    : required(pickupP99, "--pickup-p99", lag, "--lag", "--kind");
            if (objective.isZero() || objective.compareTo(DocketAdmin.MAX_SLO) > 0) {
                throw CommandFailure.usage("an objective must be more than 0 and at most 30d, was "
                        + Converters.format(objective));
            }
            String name = apply(objective);
            return println((target.queue != null ? "queue " + name + ": lag" : "kind " + name
                    + ": pickup p99") + " objective " + Converters.format(objective));
        }

        private static Duration required(Duration value, String option, Duration other, String otherOption,
                                         String target) {
            if (other != null) {
                throw CommandFailure.usage(otherOption + " does not go with " + target);
            }
            if (value == null) {
                throw CommandFailure.usage(target + " needs " + option + " DURATION (to remove it: `docket slo clear`)");
            }
            return value;
        }
    }

    @Command(name = "clear", mixinStandardHelpOptions = true, description = "Removes a queue's or a kind's objective.")
    static final class ClearCommand extends TargetCommand {

        @Override
        public Integer call() {
            String name = apply(null);
            return println("cleared the objective of " + (target.queue != null ? "queue " : "kind ") + name);
        }
    }

    /** What set and clear share: the queue or kind, and writing its objective. */
    abstract static class TargetCommand extends DatabaseCommand {

        @ArgGroup(multiplicity = "1")
        Target target;

        /**
         * Sets (or with null clears) the objective of the queue or kind; returns its name. The queue is
         * checked before connecting; a bad kind is refused by the library (an IllegalArgumentException: exit 2).
         */
        String apply(Duration objective) {
            String name = target.queue != null ? QueueCommand.checkName(target.queue) : target.kind;
            return withAdmin(admin -> {
                if (target.queue != null) {
                    admin.setQueueLagSlo(name, objective);
                } else {
                    admin.setKindPickupSlo(name, objective);
                }
                return name;
            });
        }
    }
}
