package dev.docket.server.api;

import dev.docket.Docket;
import dev.docket.Enqueued;
import dev.docket.JobInfo;
import dev.docket.JobQuery;
import dev.docket.JobState;
import dev.docket.NewJob;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code /api/jobs}: enqueue, look up, list, cancel and retry jobs.
 *
 * @param docket enqueues, looks up and changes jobs
 * @param bodies reads request bodies
 */
public record JobsApi(Docket docket, JsonBodies bodies) {

    /** The most jobs one batch request may enqueue. */
    public static final int MAX_BATCH = 1000;

    public void register(Javalin app) {
        app.post("/api/jobs", this::enqueue, Access.ENQUEUE);
        app.post("/api/jobs/batch", this::enqueueBatch, Access.ENQUEUE);
        app.get("/api/jobs", this::list, Access.READ);
        app.get("/api/jobs/{id}", this::get, Access.READ);
        app.post("/api/jobs/{id}/cancel", this::cancel, Access.OPERATE);
        app.post("/api/jobs/{id}/retry", this::retry, Access.OPERATE);
    }

    /** {@code POST /api/jobs}'s answer: the job, and whether this request inserted it. */
    record EnqueuedJob(long id, boolean inserted, String state, String queue, String kind, Instant runAt) {
    }

    /** One job of {@code POST /api/jobs/batch}'s answer. */
    record EnqueuedId(long id, boolean inserted) {
    }

    record EnqueuedBatch(List<EnqueuedId> jobs) {
    }

    private void enqueue(Context ctx) {
        JobRequests.Job body = bodies.read(ctx, JobRequests.Job.class, "the body must be a JSON object");
        NewJob job = JobRequests.parse(body);
        if (StrictKinds.requested(ctx, body.strictKinds())) {
            StrictKinds.check(docket.admin(), List.of(job));
        }
        Enqueued result = enqueueAll(List.of(job)).getFirst();
        JobInfo info = docket.job(result.id()).orElseThrow(() -> ApiException.conflict("the job finished already"));
        ctx.status(result.inserted() ? 201 : 200).json(new EnqueuedJob(result.id(), result.inserted(),
                ResponseViews.state(info.state()), info.queue(), info.kind(), info.runAt()));
    }

    private void enqueueBatch(Context ctx) {
        String shape = "the body must be {\"jobs\": [ ... ]}";
        JobRequests.Batch batch = bodies.read(ctx, JobRequests.Batch.class, shape);
        List<JobRequests.Job> jobs = batch.jobs();
        if (jobs == null) {
            throw ApiException.badRequest(shape);
        }
        if (jobs.isEmpty() || jobs.size() > MAX_BATCH) {
            throw ApiException.badRequest("a batch holds 1 to " + MAX_BATCH + " jobs, was " + jobs.size());
        }
        List<NewJob> parsed = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            try {
                if (jobs.get(i) == null) {
                    throw ApiException.badRequest("a job is a JSON object, not null");
                }
                if (jobs.get(i).strictKinds() != null) {
                    throw ApiException.badRequest("strictKinds goes at the top of the batch, not in a job");
                }
                parsed.add(JobRequests.parse(jobs.get(i)));
            } catch (ApiException e) {
                throw ApiException.badRequest("jobs[" + i + "]: " + e.getMessage());
            }
        }
        if (StrictKinds.requested(ctx, batch.strictKinds())) {
            StrictKinds.check(docket.admin(), parsed);
        }
        ctx.status(201).json(new EnqueuedBatch(enqueueAll(parsed).stream()
                .map(r -> new EnqueuedId(r.id(), r.inserted())).toList()));
    }

    private List<Enqueued> enqueueAll(List<NewJob> jobs) {
        try {
            return docket.enqueueJobs(jobs);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("payload is ")) {
                throw new ApiException(413, "payload_too_large", e.getMessage());
            }
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private void get(Context ctx) {
        long id = Params.pathId(ctx);
        JobInfo job = docket.job(id).orElseThrow(() -> ApiException.notFound("no job " + id));
        ctx.json(ResponseViews.job(job, Caller.of(ctx).role().seesPayloads()));
    }

    private void list(Context ctx) {
        JobQuery query = JobQuery.all().withLimit(Params.limit(ctx)).withBefore(Params.cursor(ctx));
        String state = ctx.queryParam("state");
        try {
            if (state != null && !state.isEmpty()) {
                query = query.withState(parseState(state));
            }
            query = query.withQueue(Params.blankToNull(ctx.queryParam("queue")))
                    .withKind(Params.blankToNull(ctx.queryParam("kind")));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.json(ResponseViews.page(docket.admin().jobs(query), query.limit()));
    }

    private void cancel(Context ctx) {
        long id = Params.pathId(ctx);
        if (docket.cancel(id)) {
            ctx.json(new ResponseViews.JobStatus(id, "cancelled"));
            return;
        }
        JobInfo job = docket.job(id).orElseThrow(() -> ApiException.notFound("no job " + id));
        throw ApiException.conflict("job " + id + " is " + ResponseViews.state(job.state()) + " and cannot be cancelled");
    }

    private void retry(Context ctx) {
        long id = Params.pathId(ctx);
        if (docket.admin().retry(id)) {
            JobInfo job = docket.job(id).orElseThrow();
            ctx.json(new ResponseViews.JobStatus(id, ResponseViews.state(job.state())));
            return;
        }
        JobInfo job = docket.job(id).orElseThrow(() -> ApiException.notFound("no job " + id));
        throw ApiException.conflict("job " + id + " is " + ResponseViews.state(job.state())
                + "; only dead or scheduled jobs can be retried");
    }

    static JobState parseState(String text) {
        try {
            return JobState.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("state must be one of scheduled, ready, running, waiting, completed, "
                    + "cancelled, dead; was '" + JobRequests.clip(text) + "'");
        }
    }
}
