package dev.docket.internal.enqueue;

import dev.docket.internal.db.DependencyQueries;
import dev.docket.internal.db.DependencyQueries.Edge;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.Inserted;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Links jobs to the jobs they depend on at enqueue, in the enqueue's transaction. {@link #check} runs
 * before the insert (an unknown dependency refuses the whole enqueue, nothing inserted), {@link
 * Checked#link} after it: each inserted job waits for its live dependencies, or is settled at once
 * from those that had already finished (ready, or scheduled by its timer, or cancelled with the reason).
 */
final class DependencyLinker {

    private static final int UNKNOWN_IDS_SHOWN = 10;

    private final DependencyQueries queries;

    DependencyLinker(DependencyQueries queries) {
        this.queries = queries;
    }

    /** Locks the live dependencies of {@code rows} and reads how the others ended. */
    Checked check(Connection c, List<InsertRow> rows) throws SQLException {
        Set<Long> all = new LinkedHashSet<>();
        for (InsertRow row : rows) {
            for (long id : row.dependsOn()) {
                all.add(id);
            }
        }
        Long[] ids = all.toArray(Long[]::new);
        Set<Long> live = queries.lockLive(c, ids);
        Map<Long, String> finished = queries.finished(c, ids);
        Set<Long> unknown = new TreeSet<>();
        for (Long id : ids) {
            if (!live.contains(id) && !finished.containsKey(id)) {
                unknown.add(id);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("dependsOn names " + unknown.size() + " unknown job(s) (not live, not in "
                    + "the history, not dead): " + unknown.stream().limit(UNKNOWN_IDS_SHOWN).toList()
                    + (unknown.size() > UNKNOWN_IDS_SHOWN ? " ..." : "") + "; nothing was enqueued");
        }
        return new Checked(live, finished);
    }

    /** What {@link #check} found: the live dependencies (locked) and the outcomes of the finished ones. */
    final class Checked {
        private final Set<Long> live;
        private final Map<Long, String> finished;

        private Checked(Set<Long> live, Map<Long, String> finished) {
            this.live = live;
            this.finished = finished;
        }

        /**
         * Makes each inserted job with dependencies wait for them or settles it now; returns the indexes of
         * the rows that are not ready after all (waiting or cancelled).
         */
        Set<Integer> link(Connection c, List<InsertRow> rows, List<Inserted> inserted) throws SQLException {
            List<Long> waitingIds = new ArrayList<>();
            List<Integer> counts = new ArrayList<>();
            List<Long> delays = new ArrayList<>();
            List<Long> delayedNow = new ArrayList<>();
            List<Long> delayedNowMillis = new ArrayList<>();
            List<Edge> edges = new ArrayList<>();
            Map<String, List<Long>> cancelled = new LinkedHashMap<>();
            Set<Integer> notReady = new LinkedHashSet<>();
            for (int i = 0; i < rows.size(); i++) {
                InsertRow row = rows.get(i);
                if (!row.hasDependencies() || !inserted.get(i).inserted()) {
                    continue;
                }
                long jobId = inserted.get(i).id();
                Settlement s = settle(row);
                if (s.readyNow()) {
                    if (row.dependencyDelayMillis() != null) {
                        // Its dependencies completed before it was enqueued: its timer counts from now.
                        notReady.add(i);
                        delayedNow.add(jobId);
                        delayedNowMillis.add(row.dependencyDelayMillis());
                    }
                    continue;
                }
                notReady.add(i);
                waitingIds.add(jobId);
                counts.add(s.pending().size());
                delays.add(row.dependencyDelayMillis());
                for (long dep : s.pending()) {
                    edges.add(new Edge(dep, jobId, row.dependencyMode()));
                }
                if (s.cancelReason() != null) {
                    cancelled.computeIfAbsent(s.cancelReason(), r -> new ArrayList<>()).add(jobId);
                }
            }
            if (!waitingIds.isEmpty()) {
                queries.wait(c, waitingIds.toArray(Long[]::new), counts.toArray(Integer[]::new),
                        delays.toArray(Long[]::new), edges);
            }
            if (!delayedNow.isEmpty()) {
                queries.delayNow(c, delayedNow, delayedNowMillis);
            }
            for (Map.Entry<String, List<Long>> e : cancelled.entrySet()) {
                queries.cancelWaiting(c, e.getValue(), e.getKey());
            }
            return notReady;
        }

        /** What one job's dependencies make of it now, by its mode (see {@code DependencyMode}). */
        private Settlement settle(InsertRow row) {
            String mode = row.dependencyMode();
            List<Long> pending = new ArrayList<>();
            for (long dep : row.dependsOn()) {
                String outcome = live.contains(dep) ? null : finished.get(dep);
                if (outcome == null || (outcome.equals("dead") && mode.equals("wait"))) {
                    pending.add(dep);
                } else if (outcome.equals("dead") && mode.equals("any_died")) {
                    return new Settlement(List.of(), null, true);
                } else if (!outcome.equals("completed") && (mode.equals("succeeded") || mode.equals("wait"))) {
                    return new Settlement(List.of(), "dependency " + dep + " "
                            + (outcome.equals("dead") ? "died" : "was cancelled"), false);
                }
            }
            if (pending.isEmpty() && mode.equals("any_died")) {
                return new Settlement(List.of(), "all dependencies finished and none died", false);
            }
            return new Settlement(pending, null, pending.isEmpty());
        }
    }

    /** A job's dependencies now: those it still waits for, or why it is cancelled at once, or that it is ready. */
    private record Settlement(List<Long> pending, String cancelReason, boolean readyNow) {
    }
}
