package dev.docket;

import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.rules.TextRules;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named graph of jobs, enqueued as one unit with {@link Docket#enqueueWorkflow(Workflow)} (in a
 * transaction of its own) or {@link Docket#enqueueWorkflow(java.sql.Connection, Workflow)} (in the
 * caller's: the workflow exists if and only if that transaction commits). Each step is one job; a step
 * waits for the steps it names ({@link JobOptions.Builder#dependsOn} under the hood) as the workflow's
 * {@link Builder#dependencyMode} says. Viewed, cancelled and retried with {@link DocketAdmin#workflow},
 * {@link DocketAdmin#cancelWorkflow} and {@link DocketAdmin#retryWorkflow}.
 *
 * <pre>{@code
 * Workflow order = Workflow.builder("order 42")
 *         .step("charge", "charge_card", new Charge(42))
 *         .step("ship", "ship_parcel", new Ship(42), "charge")
 *         .step("email", "send_email", new Email(42), "ship")
 *         .build();
 * long workflowId = docket.enqueueWorkflow(order).id();
 * }</pre>
 *
 * @param name  what the workflow is, for people: printable, 1 to 255 characters
 * @param steps the steps in an order where each comes after the steps it waits for
 * @param dependencyMode what a failed step does to the steps that wait for it
 */
public record Workflow(String name, List<Step> steps, DependencyMode dependencyMode) {

    /** Step names: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -}. */
    public static final Pattern STEP_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");
    /** The most steps in one workflow. */
    public static final int MAX_STEPS = 10_000;

    /** One step: its name, its job, and the names of the steps it waits for. */
    public record Step(String name, String kind, Object payload, JobOptions options, List<String> after) {
        public Step {
            after = List.copyOf(after);
        }

        @Override
        public String toString() {
            return "Step[" + name + ", kind=" + kind + ", after=" + after + "]";
        }
    }

    public Workflow {
        steps = List.copyOf(steps);
    }

    /** A workflow named {@code name}; see {@link Builder#build()} for what is checked. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Collects steps; {@link #build()} checks the graph. */
    public static final class Builder {
        private final String name;
        private final Map<String, Step> steps = new LinkedHashMap<>();
        private DependencyMode dependencyMode = DependencyMode.ALL_COMPLETED;

        private Builder(String name) {
            if (name == null || name.isBlank() || name.length() > 255 || !TextRules.isName(name)) {
                throw new IllegalArgumentException("a workflow name must be 1 to 255 printable characters, was "
                        + TextRules.describe(name));
            }
            this.name = name;
        }

        /** Adds a step with {@link JobOptions#defaults()}, waiting for the steps named in {@code after}. */
        public Builder step(String step, String kind, Object payload, String... after) {
            return step(step, kind, payload, JobOptions.defaults(), after);
        }

        /**
         * Adds a step of a {@link JobKind}, type-checked, with the kind's defaults, payload version and
         * max attempts, waiting for the steps named in {@code after}.
         */
        public <T> Builder step(String step, JobKind<T> kind, T payload, String... after) {
            return step(step, kind, payload, JobOptions.defaults(), after);
        }

        /**
         * Adds a step of a {@link JobKind}: the kind's defaults, payload version and (when it has its own
         * retry policy) max attempts fill what {@code options} leave unset, as for
         * {@link Docket#enqueue(JobKind, Object, JobOptions)}; otherwise as
         * {@link #step(String, String, Object, JobOptions, String...)}.
         */
        public <T> Builder step(String step, JobKind<T> kind, T payload, JobOptions options, String... after) {
            Objects.requireNonNull(kind, "kind");
            return step(step, kind.name(), payload, kind.resolve(options), after);
        }

        /**
         * Adds a step, waiting for the steps named in {@code after} (which may be added later). The options
         * may set anything but dependencies (the graph says those) and unique keys (a step is always its
         * own job).
         */
        public Builder step(String step, String kind, Object payload, JobOptions options, String... after) {
            if (step == null || !STEP_NAME.matcher(step).matches()) {
                throw new IllegalArgumentException("a step name must be 1 to 128 characters of A-Z a-z 0-9 _ . : -, was "
                        + TextRules.describe(step));
            }
            JobOptionRules.checkKind(kind);
            Objects.requireNonNull(options, "options");
            Objects.requireNonNull(after, "after");
            if (options.dependsOnIds().length > 0) {
                throw new IllegalArgumentException("step '" + step + "': a step's dependencies are step names, not dependsOn ids");
            }
            if (options.uniqueKey() != null) {
                throw new IllegalArgumentException("step '" + step + "': workflow steps cannot have a unique key");
            }
            for (String dep : after) {
                if (dep == null || !STEP_NAME.matcher(dep).matches()) {
                    throw new IllegalArgumentException("step '" + step + "' waits for an invalid step name "
                            + TextRules.describe(dep));
                }
            }
            if (List.of(after).stream().distinct().count() != after.length) {
                throw new IllegalArgumentException("step '" + step + "' names a step it waits for twice");
            }
            if (steps.containsKey(step)) {
                throw new IllegalArgumentException("a step named '" + step + "' is already in the workflow");
            }
            if (steps.size() >= MAX_STEPS) {
                throw new IllegalArgumentException("a workflow has at most " + MAX_STEPS + " steps");
            }
            steps.put(step, new Step(step, kind, payload, options, List.of(after)));
            return this;
        }

        /** What a failed step does to the steps that wait for it; default {@link DependencyMode#ALL_COMPLETED} (cancels them). */
        public Builder dependencyMode(DependencyMode mode) {
            Objects.requireNonNull(mode, "mode");
            if (mode != DependencyMode.ALL_COMPLETED && mode != DependencyMode.WAIT_FOR_REPLAY) {
                throw new IllegalArgumentException("a workflow's dependency mode is ALL_COMPLETED or WAIT_FOR_REPLAY, was "
                        + mode);
            }
            this.dependencyMode = mode;
            return this;
        }

        /**
         * The workflow, its steps in dependency order.
         *
         * @throws IllegalArgumentException if it has no step, a step waits for a step that does not exist,
         *                                  or the steps wait for each other in a cycle (named in the message)
         */
        public Workflow build() {
            if (steps.isEmpty()) {
                throw new IllegalArgumentException("workflow '" + name + "' has no steps");
            }
            for (Step s : steps.values()) {
                for (String dep : s.after()) {
                    if (!steps.containsKey(dep)) {
                        throw new IllegalArgumentException("step '" + s.name() + "' waits for '" + dep
                                + "', which is not a step of workflow '" + name + "'");
                    }
                }
            }
            return new Workflow(name, ordered(), dependencyMode);
        }

        /** Kahn's algorithm: steps whose dependencies are placed, in the order added; what is left is a cycle. */
        private List<Step> ordered() {
            Map<String, Integer> unplaced = new HashMap<>();
            Map<String, List<String>> dependents = new HashMap<>();
            Deque<String> free = new ArrayDeque<>();
            for (Step s : steps.values()) {
                unplaced.put(s.name(), s.after().size());
                for (String dep : s.after()) {
                    dependents.computeIfAbsent(dep, d -> new ArrayList<>()).add(s.name());
                }
                if (s.after().isEmpty()) {
                    free.add(s.name());
                }
            }
            List<Step> order = new ArrayList<>(steps.size());
            while (!free.isEmpty()) {
                String next = free.poll();
                order.add(steps.get(next));
                for (String d : dependents.getOrDefault(next, List.of())) {
                    if (unplaced.merge(d, -1, Integer::sum) == 0) {
                        free.add(d);
                    }
                }
            }
            if (order.size() < steps.size()) {
                throw new IllegalArgumentException("workflow '" + name + "' has a cycle: " + cycle(unplaced));
            }
            return order;
        }

        /** One cycle among the steps left unplaced, as "a -> b -> a" (each waits for the next). */
        private String cycle(Map<String, Integer> unplaced) {
            String start = steps.keySet().stream().filter(s -> unplaced.get(s) > 0).findFirst().orElseThrow();
            List<String> path = new ArrayList<>();
            String at = start;
            while (!path.contains(at)) {
                path.add(at);
                at = steps.get(at).after().stream().filter(d -> unplaced.get(d) > 0).findFirst().orElseThrow();
            }
            List<String> loop = new ArrayList<>(path.subList(path.indexOf(at), path.size()));
            loop.add(at);
            return String.join(" -> ", loop) + " (each waits for the next)";
        }
    }
}
