package dev.docket;

import static dev.docket.internal.db.Database.call;

import dev.docket.internal.db.Database;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.Jdbc;
import dev.docket.internal.db.WorkflowQueries.RetryTarget;
import dev.docket.internal.db.WorkflowQueries.StepRow;
import dev.docket.internal.enqueue.JobInserter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a {@link Workflow} is in the database: enqueued as jobs that depend on each other (a layer of
 * steps per insert, each layer depending on the ids of the ones before), with its steps recorded by
 * name; viewed, cancelled and retried as a whole. A {@link Batch} is the simplest such graph: its jobs,
 * and callbacks that depend on all of them.
 */
final class Workflows {

    private final Database store;
    private final KindRegistry kinds;
    private final JobInserter inserter;
    private final Jdbc jdbc;

    Workflows(Database store, KindRegistry kinds, JobInserter inserter) {
        this.store = store;
        this.kinds = kinds;
        this.inserter = inserter;
        this.jdbc = store.jdbc();
    }

    /** Enqueues the workflow in {@code tx}, or in a transaction of its own when {@code tx} is null. */
    WorkflowEnqueued enqueue(Connection tx, Workflow workflow) {
        return call("enqueueing workflow '" + workflow.name() + "'",
                () -> tx != null ? enqueueIn(tx, workflow) : jdbc.transaction(c -> enqueueIn(c, workflow)));
    }

    private WorkflowEnqueued enqueueIn(Connection c, Workflow workflow) throws SQLException {
        long id = store.workflows().insert(c, workflow.name(), workflow.dependencyMode().sqlName());
        // Steps come in dependency order; a step's depth is one more than its deepest dependency's.
        Map<String, Integer> depth = new HashMap<>();
        TreeMap<Integer, List<Workflow.Step>> layers = new TreeMap<>();
        for (Workflow.Step s : workflow.steps()) {
            int d = s.after().stream().mapToInt(depth::get).map(x -> x + 1).max().orElse(0);
            depth.put(s.name(), d);
            layers.computeIfAbsent(d, k -> new ArrayList<>()).add(s);
        }
        Map<String, Enqueued> jobs = new HashMap<>();
        Map<String, InsertRow.Waits> waits = new HashMap<>();
        for (List<Workflow.Step> layer : layers.values()) {
            List<InsertRow> rows = new ArrayList<>(layer.size());
            for (Workflow.Step s : layer) {
                JobOptions options = s.options().toBuilder()
                        .metadata("docket.workflow", Long.toString(id)).metadata("docket.step", s.name())
                        .dependsOn(s.after().stream().mapToLong(step -> jobs.get(step).id()).toArray())
                        .dependencyMode(workflow.dependencyMode()).build();
                InsertRow row = kinds.row(NewJob.of(s.kind(), s.payload(), options));
                waits.put(s.name(), row.waits());
                rows.add(row);
            }
            List<Enqueued> enqueued = inserter.insert(c, rows);
            for (int i = 0; i < layer.size(); i++) {
                jobs.put(layer.get(i).name(), enqueued.get(i));
            }
        }
        List<String> names = workflow.steps().stream().map(Workflow.Step::name).toList();
        store.workflows().insertSteps(c, id, names, names.stream().map(step -> jobs.get(step).id()).toList(),
                workflow.steps().stream().map(s -> s.after().stream().map(Workflows::jsonString)
                        .collect(Collectors.joining(",", "[", "]"))).toList(), names.stream().map(waits::get).toList());
        Map<String, Enqueued> steps = new LinkedHashMap<>();
        names.forEach(step -> steps.put(step, jobs.get(step)));
        return new WorkflowEnqueued(id, steps);
    }

    /** Enqueues the batch's jobs, then its callbacks depending on all of them, in {@code tx} or a transaction of its own. */
    BatchEnqueued enqueue(Connection tx, Batch batch) {
        return call("enqueueing a batch of " + batch.jobs().size() + " jobs",
                () -> tx != null ? enqueueIn(tx, batch) : jdbc.transaction(c -> enqueueIn(c, batch)));
    }

    private BatchEnqueued enqueueIn(Connection c, Batch batch) throws SQLException {
        List<Enqueued> jobs = inserter.insert(c, kinds.rows(batch.jobs()));
        long[] all = jobs.stream().mapToLong(Enqueued::id).distinct().toArray();
        return new BatchEnqueued(jobs, callback(c, batch.onAllFinished(), all, DependencyMode.ALL_FINISHED),
                callback(c, batch.onAllSucceeded(), all, DependencyMode.ALL_COMPLETED),
                callback(c, batch.onAnyDied(), all, DependencyMode.ANY_DIED));
    }

    private Long callback(Connection c, NewJob job, long[] batchJobs, DependencyMode mode) throws SQLException {
        if (job == null) {
            return null;
        }
        JobOptions options = job.options().toBuilder().dependsOn(batchJobs).dependencyMode(mode).build();
        return inserter.insert(c, List.of(kinds.row(NewJob.of(job.kind(), job.payload(), options)))).getFirst().id();
    }

    Optional<WorkflowInfo> find(long id) {
        return call("reading workflow " + id, () -> {
            var row = store.workflows().find(id);
            if (row.isEmpty()) {
                return Optional.<WorkflowInfo>empty();
            }
            List<WorkflowInfo.Step> steps = store.workflows().steps(id).stream().map(Workflows::step).toList();
            return Optional.of(new WorkflowInfo(id, row.get().name(), row.get().createdAt(),
                    WorkflowInfo.statusOf(steps), steps));
        });
    }

    long cancel(long id) {
        return call("cancelling workflow " + id, () -> store.workflows().cancel(id));
    }

    /**
     * Re-runs the dead and cancelled steps: dead ones are replayed (same job), cancelled ones enqueued
     * again from their history row, each waiting for its steps' current jobs. One transaction.
     */
    int retry(long id) {
        return call("retrying workflow " + id, () -> {
            var workflow = store.workflows().find(id);
            if (workflow.isEmpty()) {
                return 0;
            }
            Set<String> live = new HashSet<>();
            for (StepRow s : store.workflows().steps(id)) {
                if (s.state() != null && step(s).state().isLive()) {
                    live.add(s.step());
                }
            }
            return jdbc.transaction(c -> retryIn(c, id, workflow.get().dependencyMode(), live));
        });
    }

    private int retryIn(Connection c, long id, String mode, Set<String> live) throws SQLException {
        List<RetryTarget> targets = store.workflows().retryTargets(c, id);
        List<Long> dead = targets.stream().filter(RetryTarget::dead).map(RetryTarget::jobId).toList();
        if (!dead.isEmpty()) {
            store.workflows().replayDead(c, dead);
        }
        Map<String, Long> current = store.workflows().stepJobs(c, id);
        Set<String> pending = new HashSet<>();
        targets.stream().filter(t -> !t.dead()).forEach(t -> pending.add(t.step()));
        Set<String> waitable = new HashSet<>(live);
        targets.forEach(t -> waitable.add(t.step()));
        // Cancelled steps are enqueued again after the steps they wait for; a completed step is
        // already done, so only live and retried steps are waited for.
        while (!pending.isEmpty()) {
            for (RetryTarget t : targets) {
                if (!pending.contains(t.step()) || t.dependsOn().stream().anyMatch(pending::contains)) {
                    continue;
                }
                long[] after = t.dependsOn().stream().filter(waitable::contains).mapToLong(current::get).toArray();
                InsertRow row = new InsertRow(t.queue(), t.kind(), t.payload(), t.payloadVersion(), t.priority(), null,
                        null, t.maxAttempts(), t.tenant(), null, null, t.metadata(), null, false, after, mode, t.waits());
                long jobId = inserter.insert(c, List.of(row)).getFirst().id();
                store.workflows().moveStep(c, id, t.step(), jobId);
                current.put(t.step(), jobId);
                pending.remove(t.step());
            }
        }
        return targets.size();
    }

    private static WorkflowInfo.Step step(StepRow s) {
        return new WorkflowInfo.Step(s.step(), s.jobId(), s.kind(),
                s.state() == null ? null : JobState.valueOf(s.state().toUpperCase(Locale.ROOT)), s.dependsOn());
    }

    /** A step name as a JSON string: step names are A-Z a-z 0-9 _ . : - only, so quoting is all it needs. */
    private static String jsonString(String stepName) {
        return '"' + stepName + '"';
    }
}
