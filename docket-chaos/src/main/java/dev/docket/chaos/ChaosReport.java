package dev.docket.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** What a chaos run found, the checks it must pass, and how it prints them. */
final class ChaosReport {

    int enqueued;
    int completed;
    int lost;
    int doubleCompletions;
    int unexpectedDead;
    int poisonDead;
    int executions;
    int duplicated;
    int unexplained;
    int kills;
    int neverReclaimed;
    Duration bound;
    final Map<String, Integer> explained = new HashMap<>();
    final List<Long> reclaimMillis = new ArrayList<>();
    private final int poison;

    ChaosReport(int poison) {
        this.poison = poison;
    }

    boolean ok() {
        return lost == 0 && doubleCompletions == 0 && unexplained == 0 && unexpectedDead == 0 && neverReclaimed == 0
                && poisonDead == poison && maxReclaim() <= bound.toMillis();
    }

    long maxReclaim() {
        return reclaimMillis.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    long p99Reclaim() {
        List<Long> sorted = reclaimMillis.stream().sorted().toList();
        return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1));
    }

    void print(boolean drained, double seconds) {
        System.out.println();
        System.out.println("chaos report");
        row("run time", String.format(Locale.ROOT, "%.1f s", seconds), true);
        row("queue drained", drained ? "yes" : "NO", drained);
        row("jobs enqueued", Integer.toString(enqueued), true);
        row("jobs completed", Integer.toString(completed), true);
        row("jobs lost (never completed nor dead)", Integer.toString(lost), lost == 0);
        row("jobs completed more than once", Integer.toString(doubleCompletions), doubleCompletions == 0);
        row("poison jobs in dead_jobs", poisonDead + " of " + poison, poisonDead == poison);
        row("other jobs in dead_jobs", Integer.toString(unexpectedDead), unexpectedDead == 0);
        row("handler executions", Integer.toString(executions), true);
        row("jobs executed more than once", Integer.toString(duplicated), true);
        row("  duplicate executions explained", explained.toString(), true);
        row("  duplicate executions unexplained", Integer.toString(unexplained), unexplained == 0);
        row("workers killed (SIGKILL)", Integer.toString(kills), true);
        row("kill -> re-claim, max", maxReclaim() + " ms (bound " + bound.toMillis() + " ms)",
                maxReclaim() <= bound.toMillis());
        row("kill -> re-claim, p99", p99Reclaim() + " ms over " + reclaimMillis.size() + " jobs", true);
        row("killed workers' jobs never re-claimed", Integer.toString(neverReclaimed), neverReclaimed == 0);
        System.out.println(ok() && drained ? "chaos: PASS" : "chaos: FAIL");
    }

    private static void row(String name, String value, boolean ok) {
        System.out.printf(Locale.ROOT, "  %-40s %-40s %s%n", name, value, ok ? "" : "<-- FAILED");
    }
}
