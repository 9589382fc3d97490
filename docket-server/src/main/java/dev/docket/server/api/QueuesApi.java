package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DocketAdmin;
import dev.docket.JobOptions;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.Iterator;
import java.util.Set;

/** {@code /api/queues}: cluster-wide queue settings (pause, caps) and who is running what. */
public final class QueuesApi {

    private static final Set<String> LIMIT_FIELDS = Set.of("maxRunning", "tenantMaxRunning");

    private final DocketAdmin admin;
    private final Bodies bodies;

    public QueuesApi(DocketAdmin admin, Bodies bodies) {
        this.admin = admin;
        this.bodies = bodies;
    }

    public void register(Javalin app) {
        app.get("/api/queues", this::list, Access.READ);
        app.post("/api/queues/{name}/pause", ctx -> setPaused(ctx, true), Access.OPERATE);
        app.post("/api/queues/{name}/resume", ctx -> setPaused(ctx, false), Access.OPERATE);
        app.put("/api/queues/{name}/limits", this::setLimits, Access.OPERATE);
    }

    /** A queue paused or resumed. */
    record Paused(String queue, boolean paused) {
    }

    /** A queue's caps as set. */
    record Limits(String queue, Integer maxRunning, Integer tenantMaxRunning) {
    }

    private void list(Context ctx) {
        ctx.json(new Views.Queues(admin.queues().stream().map(Views::queue).toList(),
                admin.runningByTenant().stream().map(Views::running).toList()));
    }

    private void setPaused(Context ctx, boolean paused) {
        String name = queueName(ctx);
        if (paused) {
            admin.pauseQueue(name);
        } else {
            admin.resumeQueue(name);
        }
        ctx.json(new Paused(name, paused));
    }

    private void setLimits(Context ctx) {
        String name = queueName(ctx);
        JsonNode body = bodies.json(ctx);
        if (!body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object");
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!LIMIT_FIELDS.contains(field)) {
                throw ApiException.badRequest("unknown field '" + JobRequests.clip(field) + "'; fields are " + LIMIT_FIELDS);
            }
        }
        Integer maxRunning = optionalInt(body, "maxRunning", 0);
        Integer tenantMaxRunning = optionalInt(body, "tenantMaxRunning", 1);
        admin.setQueueLimits(name, maxRunning, tenantMaxRunning);
        ctx.json(new Limits(name, maxRunning, tenantMaxRunning));
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

    private static Integer optionalInt(JsonNode body, String field, int min) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < min || n.asInt() > 1_000_000) {
            throw ApiException.badRequest(field + " must be null or a whole number from " + min + " to 1000000");
        }
        return n.asInt();
    }
}
