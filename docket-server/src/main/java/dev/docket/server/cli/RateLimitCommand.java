package dev.docket.server.cli;

import dev.docket.DocketAdmin;
import dev.docket.RateLimit;
import dev.docket.RateLimitSettings;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket rate-limit}: cluster-wide limits on job starts per period, of a kind or a queue. */
@Command(name = "rate-limit", mixinStandardHelpOptions = true,
        description = {"Lists, sets and removes rate limits: at most N job starts of a kind (or of a queue) per period, "
                + "cluster-wide, in every window of that length. The next claim applies a change. A limit set here "
                + "stays in force over what nodes declare in code until it is removed."},
        subcommands = {RateLimitCommand.ListCommand.class, RateLimitCommand.SetCommand.class,
                RateLimitCommand.RemoveCommand.class})
final class RateLimitCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        throw CommandFailure.usage("give a subcommand: `docket rate-limit list`, `set --kind KIND|--queue NAME "
                + "--permits N --period D` or `remove --kind KIND|--queue NAME`");
    }

    /** Exactly one of a kind and a queue. */
    static final class Target {
        @Option(names = "--kind", paramLabel = "KIND", required = true, description = "Limit the starts of this kind.")
        String kind;

        @Option(names = "--queue", paramLabel = "NAME", required = true, description = "Limit every start in this queue.")
        String queue;

        RateLimit.Scope scope() {
            return kind != null ? RateLimit.Scope.KIND : RateLimit.Scope.QUEUE;
        }

        String name() {
            return kind != null ? kind : QueueCommand.checkName(queue);
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists every rate limit in force.")
    static final class ListCommand extends DatabaseCommand {

        @Override
        public Integer call() {
            List<RateLimitSettings> limits = withAdmin(DocketAdmin::rateLimits);
            if (limits.isEmpty()) {
                return println("No rate limit: `docket rate-limit set --kind KIND --permits 50 --period 1s`.");
            }
            Table table = new Table("SCOPE", "NAME", "PERMITS>", "PERIOD>", "PER TENANT", "SOURCE", "UPDATED");
            limits.forEach(s -> table.row(s.limit().scope().name().toLowerCase(Locale.ROOT), s.limit().name(),
                    s.limit().permits(), Converters.format(s.limit().period()), s.limit().perTenant() ? "yes" : "no",
                    s.edited() ? "edited" : "declared", s.updatedAt()));
            return print(table::print);
        }
    }

    @Command(name = "set", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Sets a limit: at most --permits starts per --period (1ms to 7d, whole milliseconds)."})
    static final class SetCommand extends DatabaseCommand {

        @ArgGroup(multiplicity = "1")
        Target target;

        @Option(names = "--permits", paramLabel = "N", required = true, order = 1, converter = Converters.PermitsConverter.class,
                description = "Starts per period, 1 to " + RateLimit.MAX_PERMITS + ".")
        int permits;

        @Option(names = "--period", paramLabel = "DURATION", required = true, order = 2,
                converter = Converters.DurationConverter.class, description = "The window: 500ms, 1s, 1m, 1h or ISO-8601.")
        Duration period;

        @Option(names = "--per-tenant", order = 3, description = "Give each tenant a budget of its own.")
        boolean perTenant;

        @Option(names = "--create", order = 4, description = "Limit a kind or queue even if none of this name is known "
                + "(without it, an unknown name fails: it is usually a typo).")
        boolean create;

        @Override
        public Integer call() {
            RateLimit limit = new RateLimit(target.scope(), target.name(), permits, period, perTenant);
            return withAdmin(admin -> {
                boolean known = limit.scope() == RateLimit.Scope.KIND ? admin.knowsKind(limit.name())
                        : admin.knowsQueue(limit.name());
                if (!known && !create) {
                    throw CommandFailure.failed("no " + limit.scope().name().toLowerCase(Locale.ROOT) + " " + limit.name()
                            + " is known (no limit, no jobs, no worker); add --create to limit it anyway");
                }
                admin.setRateLimit(limit, true);
                return println("rate limit on " + limit.describe());
            });
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true,
            description = "Removes a limit; a node that declares it in code writes it again when its next worker starts.")
    static final class RemoveCommand extends DatabaseCommand {

        @ArgGroup(multiplicity = "1")
        Target target;

        @Override
        public Integer call() {
            String name = target.name();
            String what = target.scope().name().toLowerCase(Locale.ROOT) + " " + name;
            if (!withAdmin(admin -> admin.removeRateLimit(target.scope(), name))) {
                throw CommandFailure.failed("no rate limit on " + what);
            }
            return println("removed the rate limit on " + what);
        }
    }
}
