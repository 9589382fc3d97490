package dev.docket.server.api;

import dev.docket.DocketAdmin;
import dev.docket.JobOptions;
import io.javalin.Javalin;
import io.javalin.http.Context;

/**
 * {@code /api/queues}: cluster-wide queue settings (pause, caps) and who is running what. Pausing,
 * resuming or capping a queue that is not known ({@link DocketAdmin#knowsQueue}) is a 404 unless the
 * request asks to create it ({@code ?create=true}): a misspelt name must not silently make a new queue.
 *
 * @param admin  reads and changes queue settings
 * @param bodies reads request bodies
 */
public record QueuesApi(DocketAdmin admin, JsonBodies bodies) {

    public void register(Javalin app) {
        app.get("/api/queues", this::list, Access.READ);
        app.post("/api/queues/{name}/pause", ctx -> setPaused(ctx, true), Access.OPERATE);
        app.post("/api/queues/{name}/resume", ctx -> setPaused(ctx, false), Access.OPERATE);
        app.put("/api/queues/{name}/limits", this::setLimits, Access.OPERATE);
    }

    /** A queue paused or resumed. */
    record Paused(String queue, boolean paused) {
    }

    /** {@code PUT /api/queues/{name}/limits}'s body: each cap null (or absent) for none. */
    record Limits(Integer maxRunning, Integer tenantMaxRunning) {
    }

    /** A queue's caps as set. */
    record QueueLimits(String queue, Integer maxRunning, Integer tenantMaxRunning) {
    }

    private void list(Context ctx) {
        ctx.json(new ResponseViews.Queues(admin.queues().stream().map(ResponseViews::queue).toList(),
                admin.runningByTenant().stream().map(ResponseViews::running).toList()));
    }

    private void setPaused(Context ctx, boolean paused) {
        String name = existingQueue(ctx);
        if (paused) {
            admin.pauseQueue(name);
        } else {
            admin.resumeQueue(name);
        }
        ctx.json(new Paused(name, paused));
    }

    private void setLimits(Context ctx) {
        String name = queueName(ctx);
        Limits body = bodies.read(ctx, Limits.class, "the body must be a JSON object");
        Integer maxRunning = optionalInt("maxRunning", body.maxRunning(), 0);
        Integer tenantMaxRunning = optionalInt("tenantMaxRunning", body.tenantMaxRunning(), 1);
        existingQueue(ctx);
        admin.setQueueLimits(name, maxRunning, tenantMaxRunning);
        ctx.json(new QueueLimits(name, maxRunning, tenantMaxRunning));
    }

    /** The queue named in the path, by the library's rule ({@link JobOptions.Builder#queue}). */
    private static String queueName(Context ctx) {
        String name = ctx.pathParam("name");
        try {
            JobOptions.builder().queue(name);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        return name;
    }

    /** The queue named in the path, if it is known or the request asks to create it; a 404 otherwise. */
    private String existingQueue(Context ctx) {
        String name = queueName(ctx);
        String create = ctx.queryParam("create");
        if (create != null && !create.equals("true") && !create.equals("false")) {
            throw ApiException.badRequest("create must be true or false, was '" + JobRequests.clip(create) + "'");
        }
        if (!"true".equals(create) && !admin.knowsQueue(name)) {
            throw ApiException.notFound("no queue " + name + " (no settings and no jobs); add ?create=true to create it");
        }
        return name;
    }

    private static Integer optionalInt(String field, Integer value, int min) {
        if (value != null && (value < min || value > 1_000_000)) {
            throw ApiException.badRequest(field + " must be null or a whole number from " + min + " to 1000000");
        }
        return value;
    }
}
