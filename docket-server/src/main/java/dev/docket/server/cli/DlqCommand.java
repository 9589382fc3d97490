package dev.docket.server.cli;

import dev.docket.DeadJobQuery;
import dev.docket.JobSummary;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code docket dlq}: the dead-letter table. */
@Command(name = "dlq", mixinStandardHelpOptions = true,
        description = "Lists, groups, repairs and replays jobs in the dead-letter table (jobs that failed permanently or ran out of attempts).",
        subcommands = {DlqCommand.ListCommand.class, DlqTriageCommands.GroupsCommand.class, DlqCommand.RetryCommand.class,
                DlqCommand.DiscardCommand.class, DlqTriageCommands.ReplayCommand.class, DlqTriageCommands.RepairCommand.class, DlqTriageCommands.PatchCommand.class})
final class DlqCommand implements Callable<Integer> {

    static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    @Override
    public Integer call() {
        throw CommandFailure.usage("give a subcommand: `docket dlq list`, `groups`, `retry ID...`, `discard ID`, `replay`, `repair ID` or `patch`");
    }

    @Command(name = "list", mixinStandardHelpOptions = true, sortOptions = false,
            description = "Lists dead jobs, newest first, without payloads (see `docket job ID` for one job in full).")
    static final class ListCommand extends DatabaseCommand {

        @Mixin
        DeadJobFilterOptions filter;

        @Option(names = "--limit", paramLabel = "N", defaultValue = "50", order = 4,
                description = "At most N jobs, 1 to 1000 (default: ${DEFAULT-VALUE}).")
        int limit;

        @Option(names = "--before", paramLabel = "ID", order = 5,
                description = "Only ids below ID: the next page after a listing that ended at ID.")
        Long before;

        @Override
        public Integer call() {
            if (before != null && before <= 0) {
                throw CommandFailure.usage("--before must be a job id (a positive whole number), was " + before);
            }
            DeadJobQuery query = filter.query().withBefore(before).withLimit(limit);
            List<JobSummary> jobs = withAdmin(admin -> admin.deadJobs(query));
            return print(out -> {
                if (jobs.isEmpty()) {
                    out.println("No dead jobs" + (query.kind() != null || query.errorContains() != null
                            || query.signature() != null || before != null ? " match." : "."));
                    return;
                }
                Table table = new Table("ID>", "KIND", "QUEUE", "TENANT", "ATTEMPTS>", "DIED", "REASON");
                for (JobSummary j : jobs) {
                    table.row(j.id(), j.kind(), j.queue(), j.tenant(), j.attempt() + "/" + j.maxAttempts(),
                            j.finishedAt() == null ? null : TIME.format(j.finishedAt()), clip(j.deadReason()));
                }
                table.print(out);
                if (jobs.size() == limit) {
                    out.println("(more: --before " + jobs.getLast().id() + ")");
                }
            });
        }

        private static String clip(String s) {
            return s == null || s.length() <= 100 ? s : s.substring(0, 100) + "...";
        }
    }

    @Command(name = "retry", mixinStandardHelpOptions = true,
            description = {"Puts dead jobs back to ready with a fresh attempt budget (their error history is kept).",
                    "A dead job whose unique key a live job holds now stays dead: replaying it would run it twice.",
                    "Prints each replayed id; fails (exit 1) naming the ids that were not replayed."})
    static final class RetryCommand extends DatabaseCommand {

        @Parameters(paramLabel = "ID", arity = "1..*", description = "Dead job ids.")
        List<Long> ids;

        @Override
        public Integer call() {
            Set<Long> wanted = new LinkedHashSet<>();
            ids.forEach(id -> wanted.add(checkId("job", id)));
            List<Long> replayed = withAdmin(admin -> admin.replayDead(wanted));
            print(out -> replayed.forEach(id -> out.println("replayed " + id)));
            List<Long> missing = new ArrayList<>(wanted);
            missing.removeAll(replayed);
            if (!missing.isEmpty()) {
                throw CommandFailure.failed("not replayed (no dead job with that id, or a live job holds its unique key): "
                        + missing.stream().map(String::valueOf).reduce((a, b) -> a + " " + b).orElse(""));
            }
            return 0;
        }
    }

    @Command(name = "discard", mixinStandardHelpOptions = true,
            description = {"Deletes a dead job for good. A job that halted its sequence (haltSequenceOnDeath) lets the "
                    + "sequence's next job run.", "Fails (exit 1) when there is no dead job with that id."})
    static final class DiscardCommand extends DatabaseCommand {

        @Parameters(paramLabel = "ID", description = "A dead job id.")
        long id;

        @Override
        public Integer call() {
            checkId("job", id);
            if (!withAdmin(admin -> admin.discardDead(id))) {
                throw CommandFailure.failed("no dead job " + id);
            }
            return println("discarded " + id);
        }
    }
}
