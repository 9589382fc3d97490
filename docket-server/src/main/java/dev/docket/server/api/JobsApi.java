package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.Docket;
import dev.docket.Enqueued;
import dev.docket.JobEdit;
import dev.docket.JobEditResult;
import dev.docket.JobInfo;
import dev.docket.JobQuery;
import dev.docket.JobState;
import dev.docket.NewJob;
import dev.docket.SignalDelivery;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * {@code /api/jobs}: enqueue, look up, list, cancel, retry, edit and run now jobs, and send them signals.
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
        app.post("/api/jobs/{id}/signals", this::signal, Access.SIGNAL);
        app.patch("/api/jobs/{id}", this::edit, Access.REPAIR);
        app.post("/api/jobs/{id}/run-now", this::runNow, Access.OPERATE);
    }

    /**
     * {@code PATCH /api/jobs/{id}}'s body: what to change (each optional, at least one), and who edits it
     * (optional). {@code runAt} is an ISO-8601 instant; {@code runNow: true} makes the job due now instead.
     */
    record EditRequest(JsonNode payload, String runAt, Boolean runNow, Integer priority, String queue,
                       String editedBy) {
    }

    /** {@code POST /api/jobs/{id}/run-now}'s body (optional): who runs it now. */
    record RunNowRequest(String editedBy) {
    }

    /** An edited job: its state, queue, run time and priority after the edit, and who edited it. */
    record Edited(long id, String state, String queue, Instant runAt, int priority, String editedBy) {
    }

    /** The longest name a caller may give as {@code sentBy} (the role and channel are added to it). */
    static final int MAX_SENT_BY_NAME = 100;

    /** {@code POST /api/jobs/{id}/signals}'s body: the signal's name, its payload (optional) and who sends it (optional). */
    record SignalRequest(String name, JsonNode payload, String sentBy) {
    }

    /** What became of a signal: {@code delivery} is {@code resumed} or {@code kept}; the job's state after it. */
    record Signaled(long id, String signal, String delivery, String state, String sentBy) {
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

    private void signal(Context ctx) {
        long id = Params.pathId(ctx);
        SignalRequest body = bodies.read(ctx, SignalRequest.class,
                "the body must be {\"name\": \"...\", \"payload\": ... (optional), \"sentBy\": \"...\" (optional)}");
        if (body.name() == null || body.name().isEmpty()) {
            throw ApiException.badRequest("name is required: the signal's name, 1 to 128 characters of A-Z a-z 0-9 _ . : -");
        }
        String by = sentBy(ctx, body.sentBy());
        SignalDelivery delivery;
        try {
            String payload = null;
            if (body.payload() != null && !body.payload().isNull()) {
                PayloadCheck.check(body.payload());
                payload = body.payload().toString();
            }
            delivery = docket.admin().sendSignal(id, body.name(), payload, by);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("payload is ")) {
                throw new ApiException(413, "payload_too_large", e.getMessage());
            }
            throw ApiException.badRequest(e.getMessage());
        } catch (IllegalStateException e) {
            throw ApiException.conflict("job " + id + " takes no more signals: 100 are kept that no wait took");
        }
        if (delivery == SignalDelivery.NO_LIVE_JOB) {
            JobInfo job = docket.job(id).orElseThrow(() -> ApiException.notFound("no job " + id));
            throw ApiException.conflict("job " + id + " is " + ResponseViews.state(job.state())
                    + ": a signal reaches only live jobs");
        }
        String state = docket.job(id).map(j -> ResponseViews.state(j.state())).orElse("finished");
        ctx.json(new Signaled(id, body.name(), delivery.name().toLowerCase(Locale.ROOT), state, by));
    }

    private void edit(Context ctx) {
        long id = Params.pathId(ctx);
        EditRequest body = bodies.read(ctx, EditRequest.class, "the body must be a JSON object with any of payload, "
                + "runAt, runNow, priority, queue (and editedBy)");
        String by = recordedBy(ctx, body.editedBy(), "editedBy");
        JobEdit edit;
        try {
            JobEdit.Builder b = JobEdit.builder();
            if (body.payload() != null) {
                if (body.payload().isNull()) {
                    throw ApiException.badRequest("payload must be JSON (use {} for none), not null");
                }
                PayloadCheck.check(body.payload());
                b.payload(body.payload().toString());
            }
            if (body.runAt() != null && Boolean.TRUE.equals(body.runNow())) {
                throw ApiException.badRequest("give runAt or runNow, not both");
            }
            if (body.runAt() != null) {
                b.runAt(JobRequests.parseInstant(body.runAt()));
            }
            if (Boolean.TRUE.equals(body.runNow())) {
                b.runNow();
            }
            if (body.priority() != null) {
                b.priority(body.priority());
            }
            if (body.queue() != null) {
                b.queue(body.queue());
            }
            edit = b.build();
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        answerEdit(ctx, id, () -> docket.admin().editJob(id, edit, by), by);
    }

    private void runNow(Context ctx) {
        long id = Params.pathId(ctx);
        String name = null;
        if (!ctx.body().isBlank()) {
            name = bodies.read(ctx, RunNowRequest.class, "the body must be empty or {\"editedBy\": \"...\"}").editedBy();
        }
        String by = recordedBy(ctx, name, "editedBy");
        answerEdit(ctx, id, () -> docket.admin().runNow(id, by), by);
    }

    /** Applies an edit and answers: 200 with the job, 404, 409 (started, finished, or waiting), 400 or 413. */
    private void answerEdit(Context ctx, long id, Supplier<JobEditResult> apply, String by) {
        JobEditResult result;
        try {
            result = apply.get();
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("payload is ")) {
                throw new ApiException(413, "payload_too_large", e.getMessage());
            }
            throw ApiException.badRequest(e.getMessage());
        }
        switch (result.outcome()) {
            case NO_SUCH_JOB -> throw ApiException.notFound("no job " + id);
            case NOT_EDITABLE -> throw ApiException.conflict(result.message());
            case EDITED -> {
                JobInfo job = docket.job(id).orElseThrow(() -> ApiException.conflict("the job finished already"));
                ctx.json(new Edited(id, ResponseViews.state(result.state()), job.queue(), job.runAt(), job.priority(), by));
            }
        }
    }

    /** Who edits a job, as recorded: the given name (if any) with the caller's role and channel. */
    private static String recordedBy(Context ctx, String name, String field) {
        Caller caller = Caller.of(ctx);
        String channel = caller.role().label() + ", " + (caller.viaSession() ? "dashboard" : "API token");
        if (name == null || name.isEmpty()) {
            return channel;
        }
        // The library refuses anything unprintable in the whole record (DocketAdmin.editJob).
        if (name.length() > MAX_SENT_BY_NAME || name.isBlank()) {
            throw ApiException.badRequest(field + " must be 1 to " + MAX_SENT_BY_NAME + " printable characters");
        }
        return name + " (" + channel + ")";
    }

    /** Who sends a signal, as recorded: the given name (if any) with the caller's role and channel. */
    private static String sentBy(Context ctx, String name) {
        Caller caller = Caller.of(ctx);
        String channel = caller.role().label() + ", " + (caller.viaSession() ? "dashboard" : "API token");
        if (name == null || name.isEmpty()) {
            return channel;
        }
        // The library refuses anything unprintable in the whole record (DocketAdmin.sendSignal).
        if (name.length() > MAX_SENT_BY_NAME || name.isBlank()) {
            throw ApiException.badRequest("sentBy must be 1 to " + MAX_SENT_BY_NAME + " printable characters");
        }
        return name + " (" + channel + ")";
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
