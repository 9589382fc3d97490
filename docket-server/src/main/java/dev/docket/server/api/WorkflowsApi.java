package dev.docket.server.api;

import dev.docket.DependencyMode;
import dev.docket.Docket;
import dev.docket.NewJob;
import dev.docket.Workflow;
import dev.docket.WorkflowInfo;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * {@code /api/workflows}: enqueue a workflow (a named graph of jobs, in one transaction), look at its
 * graph with each step's state, cancel it, retry its failed steps.
 *
 * @param docket enqueues and administers workflows
 * @param bodies reads request bodies
 */
public record WorkflowsApi(Docket docket, JsonBodies bodies) {

    /** {@code POST /api/workflows}'s body: {@code dependencyMode} is {@code all_completed} (default) or {@code wait_for_replay}. */
    record WorkflowRequest(String name, String dependencyMode, List<StepRequest> steps) {
    }

    /** One step: its name, the names of the steps it waits for, and its job as {@code POST /api/jobs} takes it. */
    record StepRequest(String name, List<String> after, JobRequests.Job job) {
    }

    record StepView(String name, long jobId, String kind, String state, List<String> after) {
    }

    record WorkflowView(long id, String name, Instant createdAt, String status, List<StepView> steps) {
    }

    record Changed(long id, long steps) {
    }

    public void register(Javalin app) {
        app.post("/api/workflows", this::enqueue, Access.ENQUEUE);
        app.get("/api/workflows/{id}", this::get, Access.READ);
        app.post("/api/workflows/{id}/cancel", this::cancel, Access.OPERATE);
        app.post("/api/workflows/{id}/retry", this::retry, Access.OPERATE);
    }

    private void enqueue(Context ctx) {
        String shape = "the body must be {\"name\": NAME, \"steps\": [{\"name\": STEP, \"after\": [STEP, ...], "
                + "\"job\": {\"kind\": KIND, \"payload\": {...}, ...}}, ...]}";
        WorkflowRequest body = bodies.read(ctx, WorkflowRequest.class, shape);
        if (body.steps() == null || body.name() == null) {
            throw ApiException.badRequest(shape);
        }
        if (body.steps().size() > Workflow.MAX_STEPS) {
            throw ApiException.badRequest("a workflow has at most " + Workflow.MAX_STEPS + " steps, was " + body.steps().size());
        }
        Workflow workflow;
        try {
            Workflow.Builder builder = Workflow.builder(body.name());
            if (body.dependencyMode() != null) {
                builder.dependencyMode(mode(body.dependencyMode()));
            }
            for (int i = 0; i < body.steps().size(); i++) {
                StepRequest step = body.steps().get(i);
                if (step == null || step.job() == null) {
                    throw ApiException.badRequest("steps[" + i + "]: a step is {\"name\", \"after\", \"job\"}");
                }
                try {
                    NewJob job = JobRequests.parse(step.job());
                    List<String> after = step.after() == null ? List.of() : step.after();
                    builder.step(step.name(), job.kind(), job.payload(), job.options(), after.toArray(String[]::new));
                } catch (IllegalArgumentException | ApiException e) {
                    throw ApiException.badRequest("steps[" + i + "]: " + e.getMessage());
                }
            }
            workflow = builder.build();
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        long id;
        try {
            id = docket.enqueueWorkflow(workflow).id();
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.status(201).json(view(docket.admin().workflow(id).orElseThrow()));
    }

    private void get(Context ctx) {
        long id = Params.pathId(ctx);
        ctx.json(view(docket.admin().workflow(id).orElseThrow(() -> ApiException.notFound("no workflow " + id))));
    }

    private void cancel(Context ctx) {
        long id = existing(ctx);
        ctx.json(new Changed(id, docket.admin().cancelWorkflow(id)));
    }

    private void retry(Context ctx) {
        long id = existing(ctx);
        ctx.json(new Changed(id, docket.admin().retryWorkflow(id)));
    }

    private long existing(Context ctx) {
        long id = Params.pathId(ctx);
        if (docket.admin().workflow(id).isEmpty()) {
            throw ApiException.notFound("no workflow " + id);
        }
        return id;
    }

    private static DependencyMode mode(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "all_completed" -> DependencyMode.ALL_COMPLETED;
            case "wait_for_replay" -> DependencyMode.WAIT_FOR_REPLAY;
            default -> throw ApiException.badRequest("dependencyMode must be all_completed or wait_for_replay, was '"
                    + JobRequests.clip(text) + "'");
        };
    }

    static WorkflowView view(WorkflowInfo w) {
        return new WorkflowView(w.id(), w.name(), w.createdAt(), w.status().name().toLowerCase(Locale.ROOT),
                w.steps().stream().map(s -> new StepView(s.name(), s.jobId(), s.kind(),
                        s.state() == null ? null : ResponseViews.state(s.state()), s.after())).toList());
    }
}
