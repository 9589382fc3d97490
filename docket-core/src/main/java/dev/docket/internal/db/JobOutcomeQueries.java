package dev.docket.internal.db;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A worker's fenced writes about the jobs it claimed: outcomes and heartbeats. Each matches a job
 * only while this worker still holds the claimed attempt, and returns the fences that matched.
 */
public record JobOutcomeQueries(Jdbc jdbc, Statements sql) {

    /**
     * Writes many outcomes of this worker's attempts in one transaction, one statement per kind of
     * outcome, and returns the fences that matched. A fence that did not match was lost (rescued,
     * cancelled, or already written): its outcome changed nothing.
     */
    public Set<Fence> writeOutcomes(String workerId, List<Outcome> outcomes, boolean keepHistory) throws SQLException {
        return writeOutcomes(workerId, outcomes, keepHistory, false);
    }

    /**
     * Like {@link #writeOutcomes(String, List, boolean)}; with {@code asyncCommit} the transaction
     * commits without waiting for its WAL flush ({@code synchronous_commit = off}, local to it): a
     * database crash may then lose the last outcomes written, whose jobs run again.
     */
    public Set<Fence> writeOutcomes(String workerId, List<Outcome> outcomes, boolean keepHistory, boolean asyncCommit)
            throws SQLException {
        if (!asyncCommit && oneKind(outcomes) && !removesSeveralHeads(outcomes)) {
            // One statement is atomic on its own: auto-commit saves the COMMIT round trip, and a worker cut
            // off between its statement and its COMMIT can no longer hold the rows' locks meanwhile.
            return jdbc.autoCommit(c -> writeOutcomes(c, workerId, outcomes, keepHistory));
        }
        return jdbc.transaction(c -> {
            if (asyncCommit) {
                Jdbc.execute(c, sql.get("jobOutcomesAsyncCommit"), Jdbc.NO_PARAMETERS);
            }
            return writeOutcomes(c, workerId, outcomes, keepHistory);
        });
    }

    /**
     * Runs {@code work} in a transaction and writes the outcome it returns in that same transaction,
     * fenced; commits both only if the fence matched, else rolls both back and returns null: the
     * lease was lost, and nothing {@code work} wrote becomes visible. Commits durably.
     */
    public Outcome writeOutcomeWith(String workerId, boolean keepHistory, Jdbc.Work<Outcome> work)
            throws SQLException {
        try {
            return jdbc.transaction(c -> {
                Outcome outcome = work.run(c);
                if (!writeOutcomes(c, workerId, List.of(outcome), keepHistory).contains(outcome.fence())) {
                    throw new FencedOut();
                }
                return outcome;
            });
        } catch (FencedOut e) {
            return null;
        }
    }

    /** Whether every outcome is of one kind, so that {@link #writeOutcomes(Connection, String, List, boolean)} runs one statement. */
    private static boolean oneKind(List<Outcome> outcomes) {
        for (Outcome o : outcomes) {
            if (o.getClass() != outcomes.getFirst().getClass()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the outcomes take the heads of two or more sequences out of the jobs table: their keys'
     * locks must then be taken in one order first, in the same transaction (see {@link #writeOutcomes(
     * Connection, String, List, boolean)}). False, and no statement more, for jobs outside sequences.
     */
    private static boolean removesSeveralHeads(List<Outcome> outcomes) {
        return SequenceQueries.severalKeys(outcomes.stream().map(Outcome::removesHeadOf));
    }

    /** Rolls back a transaction whose outcome matched no row; never leaves {@link #writeOutcomeWith}. */
    private static final class FencedOut extends RuntimeException {
        FencedOut() {
            super(null, null, false, false);
        }
    }

    /** Writes outcomes on {@code c}, in the caller's transaction; returns the fences that matched. */
    private Set<Fence> writeOutcomes(Connection c, String workerId, List<Outcome> outcomes, boolean keepHistory)
            throws SQLException {
        List<Outcome.Completed> completed = new ArrayList<>();
        List<Outcome.Retry> retries = new ArrayList<>();
        List<Outcome.Dead> deaths = new ArrayList<>();
        List<Outcome.Released> released = new ArrayList<>();
        List<Outcome.Snoozed> snoozed = new ArrayList<>();
        List<Outcome.AwaitSignal> awaits = new ArrayList<>();
        for (Outcome o : outcomes) {
            switch (o) {
                case Outcome.Completed done -> completed.add(done);
                case Outcome.Retry r -> retries.add(r);
                case Outcome.Dead d -> deaths.add(d);
                case Outcome.Released r -> released.add(r);
                case Outcome.Snoozed z -> snoozed.add(z);
                case Outcome.AwaitSignal a -> awaits.add(a);
            }
        }
        // One lock order (by id) for every statement, so two completers never wait on each other in a cycle.
        Comparator<Outcome> byId = Comparator.comparingLong(o -> o.fence().id());
        completed.sort(byId);
        retries.sort(byId);
        deaths.sort(byId);
        released.sort(byId);
        snoozed.sort(byId);
        awaits.sort(byId);
        Set<Fence> applied = new HashSet<>();
        // First, before any row lock: the waits take per-job locks that signal senders share, and a sender
        // holding one may be waiting for a row of this batch (a wait that took its lock after the batch's row
        // locks could close a cycle).
        fencedMany(c, "jobAwaitSignalMany", awaits, workerId, applied, (p, list) -> p
                .array("text", list.stream().map(Outcome.AwaitSignal::signal).toArray())
                .array("bigint", list.stream().map(Outcome.AwaitSignal::timeoutMillis).toArray())
                .array("text", list.stream().map(Outcome.AwaitSignal::onTimeout).toArray()));
        if (removesSeveralHeads(outcomes)) {
            SequenceQueries.lockKeysOfJobs(c, sql, outcomes.stream().filter(o -> o.removesHeadOf() != null)
                    .map(o -> o.fence().id()).toArray());
        }
        String complete = keepHistory ? "jobCompleteManyToHistory" : "jobCompleteManyDiscard";
        fencedMany(c, complete, completed, workerId, applied, (p, list) -> p);
        fencedMany(c, "jobRetryMany", retries, workerId, applied, (p, list) -> p
                .array("bigint", list.stream().map(Outcome.Retry::delayMillis).toArray())
                .array("text", list.stream().map(Outcome.Retry::error).toArray()));
        fencedMany(c, "deadJobInsertFromJobs", deaths, workerId, applied, (p, list) -> p
                .array("text", list.stream().map(Outcome.Dead::error).toArray())
                .array("text", list.stream().map(Outcome.Dead::reason).toArray()));
        fencedMany(c, "jobSnoozeMany", snoozed, workerId, applied, (p, list) -> p
                .array("bigint", list.stream().map(Outcome.Snoozed::delayMillis).toArray()));
        fencedMany(c, "jobReleaseMany", released, workerId, applied, (p, list) -> p
                .array("int4", list.stream().map(r -> r.giveBackAttempt() ? 1 : 0).toArray()));
        return applied;
    }

    /** The parameters an outcome statement takes between its jobs' ids and attempts and the worker id. */
    @FunctionalInterface
    private interface OutcomeParams<O extends Outcome> {
        Jdbc.Params bind(Jdbc.Params p, List<O> outcomes) throws SQLException;
    }

    /**
     * Runs the outcome statement {@code name} for {@code outcomes}, none: no statement. Every such statement
     * takes the jobs' ids and attempts, then its own parameters ({@code more}), then the worker id.
     */
    private <O extends Outcome> void fencedMany(Connection c, String name, List<O> outcomes, String workerId,
                                                Set<Fence> applied, OutcomeParams<O> more) throws SQLException {
        if (!outcomes.isEmpty()) {
            fenced(c, sql.get(name), applied, p -> more.bind(p.array("bigint", ids(outcomes))
                    .array("int4", attempts(outcomes)), outcomes).text(workerId));
        }
    }

    /**
     * Extends each lease this worker still holds by its own duration ({@code leases.get(i)} for
     * {@code fences.get(i)}) and returns the fences it held; the missing ones were lost. With
     * {@code asyncCommit} it commits without waiting for its WAL flush.
     */
    public Set<Fence> heartbeatMany(String workerId, List<Fence> fences, List<Duration> leases, boolean asyncCommit)
            throws SQLException {
        Set<Fence> held = new HashSet<>();
        if (fences.isEmpty()) {
            return held;
        }
        Object[] ids = fences.stream().map(Fence::id).toArray();
        jdbc.autoCommit(c -> {
            fenced(c, sql.get(asyncCommit ? "jobHeartbeatManyAsyncCommit" : "jobHeartbeatMany"), held, p -> p
                    .array("bigint", ids).array("int4", fences.stream().map(Fence::attempt).toArray())
                    .array("bigint", leases.stream().map(Duration::toMillis).toArray())
                    .text(workerId).array("bigint", ids));
            return null;
        });
        return held;
    }

    /** Runs a fenced statement and adds the (id, attempt) fences it matched to {@code applied}. */
    private static void fenced(Connection c, String sql, Set<Fence> applied, Jdbc.Binder binder) throws SQLException {
        Jdbc.each(c, sql, binder, rs -> applied.add(fence(rs)));
    }

    private static Fence fence(ResultSet rs) throws SQLException {
        return new Fence(rs.getLong("id"), rs.getInt("attempt"));
    }

    private static Object[] ids(List<? extends Outcome> outcomes) {
        return outcomes.stream().map(o -> o.fence().id()).toArray();
    }

    private static Object[] attempts(List<? extends Outcome> outcomes) {
        return outcomes.stream().map(o -> o.fence().attempt()).toArray();
    }

    /**
     * Writes a running attempt's progress and new log lines, fenced; either JSON may be null (left as it is).
     * {@code droppedLines}: lines the worker left out before writing, to count with those the cap drops here.
     *
     * @return false if the attempt no longer holds the job (nothing changed)
     */
    public boolean writeNotes(Fence fence, String workerId, String progressJson, String linesJson, int droppedLines,
                              int capBytes) throws SQLException {
        return jdbc.update(sql.get("jobNotesWrite"), p -> p.text(progressJson).text(linesJson).text(linesJson)
                .int4(droppedLines).int4(capBytes).int8(fence.id()).int4(fence.attempt()).text(workerId)) == 1;
    }

    /**
     * Puts back a job this worker holds whose payload version its handler cannot read yet, to come back
     * after {@code delayMillis}, its attempt given back and {@code reason} noted in its metadata.
     *
     * @return false if the claim was lost meanwhile (nothing changed)
     */
    public boolean awaitNewerVersion(Fence fence, String workerId, long delayMillis, String reason)
            throws SQLException {
        return jdbc.update(sql.get("jobAwaitNewerVersion"), p -> p.int8(delayMillis).text(reason).int8(fence.id())
                .int4(fence.attempt()).text(workerId)) == 1;
    }
}
