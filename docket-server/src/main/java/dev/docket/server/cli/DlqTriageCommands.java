package dev.docket.server.cli;

import dev.docket.DeadJobGroup;
import dev.docket.DeadJobQuery;
import dev.docket.DeadJobRepair;
import dev.docket.DeadJobReplay;
import dev.docket.DocketAdmin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code docket dlq groups | replay | repair | patch}: the dead-letter runbook. Find the failure
 * (groups by error signature), fix its cause, repair the payloads if they are what is wrong, and
 * replay the group at a rate that does not flood the queue.
 */
final class DlqTriageCommands {

    private DlqTriageCommands() {
    }

    /** JSON text given inline, or read from a file with {@code @FILE}. */
    static String jsonArgument(String option, String value) {
        if (!value.startsWith("@")) {
            return value;
        }
        Path file = Path.of(value.substring(1));
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw CommandFailure.usage("cannot read the " + option + " file " + file + ": " + ErrorMessages.io(e));
        }
    }

    /** {@code --by NAME}: who repairs, for {@code dlq repair} and {@code dlq patch}. */
    static final class RepairerOption {

        @Option(names = "--by", paramLabel = "NAME", order = 50,
                description = "Who repairs, for the record (default: the operating-system user).")
        String by;

        /** As recorded in the job: the name given, else the operating-system user, marked as the CLI's. */
        String repairedBy() {
            String name = by != null ? by : System.getProperty("user.name", "unknown");
            return name + " (cli)";
        }
    }

    @Command(name = "groups", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Groups dead jobs by kind and error signature, largest groups first: one broken handler is one",
                    "group, whatever ids, numbers or quoted values its messages carry. Use a group's signature with",
                    "`dlq list --signature`, `dlq replay --signature` and `dlq patch --signature`."})
    static final class GroupsCommand extends DatabaseCommand {

        @Option(names = "--kind", paramLabel = "KIND", order = 1, description = "Only groups of this kind.")
        String kind;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "50", order = 2,
                description = "At most N groups, 1 to 1000 (default: ${DEFAULT-VALUE}).")
        int limit;

        @Override
        public Integer call() {
            List<DeadJobGroup> groups = withAdmin(admin -> admin.deadJobGroups(DeadJobFilterOptions.blankToNull(kind), limit));
            return print(out -> {
                if (groups.isEmpty()) {
                    out.println("No dead jobs" + (kind != null ? " of kind " + kind + "." : "."));
                } else {
                    Table table = new Table("JOBS>", "KIND", "LAST DIED", "SIGNATURE");
                    groups.forEach(g -> table.row(g.count(), g.kind(), DlqCommand.TIME.format(g.lastDiedAt()), g.signature()));
                    table.print(out);
                }
            });
        }
    }

    @Command(name = "replay", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Replays the dead jobs that match, newest first, at a bounded rate: the cluster's maintenance",
                    "leader carries it out (a worker with maintenance on must run), and its progress is kept in the",
                    "database. Prints the replay's id and how many jobs matched."})
    static final class ReplayCommand extends DatabaseCommand {

        @Mixin
        DeadJobFilterOptions filter;

        @Option(names = "--rate", paramLabel = "PER_SECOND", defaultValue = "100", order = 4,
                converter = Converters.ReplayRateConverter.class,
                description = "Jobs per second, a whole number from 1 to 10000, as the API and the dashboard take it "
                        + "(default: ${DEFAULT-VALUE}).")
        int rate;

        @Option(names = "--max", paramLabel = "N", defaultValue = "10000", order = 5,
                description = "At most N jobs, 1 to 1000000 (default: ${DEFAULT-VALUE}).")
        int max;

        @Override
        public Integer call() {
            DeadJobReplay replay = withAdmin(admin -> admin.startDeadJobReplay(filter.query(), rate, max));
            return println("replay " + replay.id() + ": " + replay.matched() + " dead jobs match"
                    + (replay.state() == DeadJobReplay.State.DONE ? "; nothing to do" : ", replaying at " + rate + "/s"));
        }
    }

    @Command(name = "repair", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Replaces a dead job's payload before it is replayed (it stays dead until then). The payload",
                    "must pass an enqueue's rules (size limit, valid JSON text). The repair is recorded in the job's",
                    "metadata (docket.repairs: who, when, how; never the payload)."})
    static final class RepairCommand extends DatabaseCommand {

        @Parameters(paramLabel = "ID", description = "The dead job's id.")
        long id;

        @Option(names = "--payload", required = true, paramLabel = "JSON", order = 1,
                description = "The new payload as JSON; @FILE reads it from a file.")
        String payload;

        @Mixin
        RepairerOption repairer;

        @Override
        public Integer call() {
            checkId("job", id);
            String json = jsonArgument("--payload", payload);
            if (!withAdmin(admin -> admin.repairDead(id, json, repairer.repairedBy()))) {
                throw CommandFailure.failed("no dead job " + id);
            }
            return println("repaired " + id + " (still dead: `docket dlq retry " + id + "` replays it)");
        }
    }

    @Command(name = "patch", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Applies a JSON merge patch (RFC 7386) to the payload of every dead job of a group (a kind and",
                    "an error signature): the patch sets the fields it names, removes those it sets to null and merges",
                    "nested objects. All or nothing; jobs it leaves unchanged are not written; each changed job records",
                    "the repair. Then replay the group: `docket dlq replay --kind K --signature S --rate R`."})
    static final class PatchCommand extends DatabaseCommand {

        @Option(names = "--kind", required = true, paramLabel = "KIND", order = 1, description = "The group's kind.")
        String kind;

        @Option(names = "--signature", required = true, paramLabel = "SIGNATURE", order = 2,
                description = "The group's error signature (see `dlq groups`).")
        String signature;

        @Option(names = "--merge-patch", required = true, paramLabel = "JSON", order = 3,
                description = "A JSON object; @FILE reads it from a file.")
        String mergePatch;

        @Option(names = "--error-contains", paramLabel = "TEXT", order = 4,
                description = "Only the group's jobs whose errors or reason contain TEXT.")
        String errorContains;

        @Option(names = "--max", paramLabel = "N", defaultValue = "1000", order = 5,
                description = "At most N jobs, newest first, 1 to " + DocketAdmin.MAX_GROUP_REPAIR + " (default: ${DEFAULT-VALUE}).")
        int max;

        @Option(names = "--dry-run", order = 6, description = "Change nothing; print which jobs the patch would change.")
        boolean dryRun;

        @Mixin
        RepairerOption repairer;

        @Override
        public Integer call() {
            DeadJobQuery group = DeadJobQuery.all().withKind(kind).withSignature(signature)
                    .withErrorContains(DeadJobFilterOptions.blankToNull(errorContains));
            String patch = jsonArgument("--merge-patch", mergePatch);
            DeadJobRepair result = withAdmin(admin -> admin.repairDeadGroup(group, patch, repairer.repairedBy(), max, dryRun));
            return println((dryRun ? "dry run: would change " : "changed ") + result.changed().size() + " of "
                    + result.matched() + " dead jobs" + (result.changed().isEmpty() ? ""
                    : ": " + result.changed().stream().map(String::valueOf).reduce((a, b) -> a + " " + b).orElse("")));
        }
    }
}
