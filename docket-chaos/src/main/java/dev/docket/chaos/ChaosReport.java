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
    /** Acknowledged enqueues that an asynchronous failover lost (present on the old primary only). */
    int lostToFailover;
    /** Whether the run may lose acknowledged enqueues to a failover (asynchronous replication): reported, not failed. */
    boolean lossAllowed;
    /** Whether a failover's losses were audited (the killed primary compared with the new one): then they are printed. */
    boolean failoverAudited;
    int doubleCompletions;
    int unexpectedDead;
    int poisonDead;
    int executions;
    int duplicated;
    int unexplained;
    int kills;
    int neverReclaimed;
    /** Jobs held at a lost lease whose own outcome, already sent, committed before that lease ran out. */
    int finishedInFlight;
    Duration bound;
    /** Re-claims held to a longer bound because they also waited for the database or new leaders. */
    int reclaimsWaiting;
    /** The re-claim closest to its own bound (or over it): its time and its bound. */
    long tightestMillis;
    long tightestBound = Long.MAX_VALUE;
    /** Transactional ({@code counter}) jobs completed, their counters not exactly 1, and their attempts fenced out. */
    long transactionalCompleted;
    long countersWrong;
    long fencedOut;
    final Map<String, Integer> explained = new HashMap<>();
    final List<Long> reclaimMillis = new ArrayList<>();
    private final List<Figure> figures = new ArrayList<>();
    private final int poison;

    ChaosReport(int poison) {
        this.poison = poison;
    }

    /** A scenario's own figure: a row of the report, and a check when {@code ok} can be false. */
    void figure(String name, String value, boolean ok) {
        figures.add(new Figure(name, value, ok));
    }

    /** Takes the figures and the loss accounting of {@code other} (checked before this report was made). */
    void absorb(ChaosReport other) {
        figures.addAll(0, other.figures);
        lossAllowed = other.lossAllowed;
        failoverAudited = other.failoverAudited;
    }

    private record Figure(String name, String value, boolean ok) {
    }

    /** How many figures have a name starting with {@code prefix}, and whether all of those passed. */
    boolean figuresOk(String prefix, int expected) {
        List<Figure> of = figures.stream().filter(f -> f.name().startsWith(prefix)).toList();
        return of.size() == expected && of.stream().allMatch(Figure::ok);
    }

    boolean ok() {
        return lost == 0 && (lossAllowed || lostToFailover == 0) && figures.stream().allMatch(Figure::ok) && doubleCompletions == 0 && unexplained == 0 && unexpectedDead == 0 && neverReclaimed == 0
                && poisonDead == poison && tightestMillis <= tightestBound;
    }

    /** One job claimed again {@code millis} after its lease was lost, where {@code boundMillis} applied. */
    void reclaimed(long millis, long boundMillis) {
        reclaimMillis.add(millis);
        if (boundMillis > bound.toMillis()) {
            reclaimsWaiting++;
        }
        if (boundMillis - millis < tightestBound - tightestMillis) {
            tightestMillis = millis;
            tightestBound = boundMillis;
        }
    }

    private long p99Reclaim() {
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
        if (lostToFailover > 0 || lossAllowed || failoverAudited) {
            row("acknowledged enqueues lost by the failover", Integer.toString(lostToFailover),
                    lossAllowed || lostToFailover == 0);
        }
        row("jobs completed more than once", Integer.toString(doubleCompletions), doubleCompletions == 0);
        row("poison jobs in dead_jobs", poisonDead + " of " + poison, poisonDead == poison);
        row("other jobs in dead_jobs", Integer.toString(unexpectedDead), unexpectedDead == 0);
        row("handler executions", Integer.toString(executions), true);
        row("jobs executed more than once", Integer.toString(duplicated), true);
        row("  duplicate executions explained", explained.toString(), true);
        row("  duplicate executions unexplained", Integer.toString(unexplained), unexplained == 0);
        row("leases lost (SIGKILL, cut host)", Integer.toString(kills), true);
        long max = reclaimMillis.stream().mapToLong(Long::longValue).max().orElse(0);
        row("lease lost -> re-claim, max / p99", max + " / " + p99Reclaim() + " ms over " + reclaimMillis.size()
                + " jobs", true);
        row("  bound", bound.toMillis() + " ms, more for " + reclaimsWaiting + " jobs that waited for a new leader "
                + "or the database", true);
        row("  closest to its bound", reclaimMillis.isEmpty() ? "-" : tightestMillis + " of " + tightestBound + " ms",
                tightestMillis <= tightestBound);
        row("lost leases never re-claimed", Integer.toString(neverReclaimed), neverReclaimed == 0);
        row("  held jobs finished by their holder within its lease", Integer.toString(finishedInFlight), true);
        for (Figure f : figures) {
            row(f.name(), f.value(), f.ok());
        }
        System.out.println(ok() && drained ? "chaos: PASS" : "chaos: FAIL");
    }

    private static void row(String name, String value, boolean ok) {
        System.out.printf(Locale.ROOT, "  %-52s %-44s %s%n", name, value, ok ? "" : "<-- FAILED");
    }
}
