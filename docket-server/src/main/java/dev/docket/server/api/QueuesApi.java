package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DocketAdmin;
import dev.docket.JobOptions;
import dev.docket.QueueSettings;
import dev.docket.TenantRunning;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
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

    private void list(Context ctx) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("queues", admin.queues().stream().map(QueuesApi::view).toList());
        body.put("runningByTenant", admin.runningByTenant().stream().map(QueuesApi::view).toList());
        ctx.json(body);
    }

    private void setPaused(Context ctx, boolean paused) {
        String name = queueName(ctx);
        if (paused) {
            admin.pauseQueue(name);
        } else {
            admin.resumeQueue(name);
        }
        ctx.json(Map.of("queue", name, "paused", paused));
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
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("queue", name);
        out.put("maxRunning", maxRunning);
        out.put("tenantMaxRunning", tenantMaxRunning);
        ctx.json(out);
    }

    private static String queueName(Context ctx) {
        String name = ctx.pathParam("name");
        if (!JobOptions.QUEUE_NAME.matcher(name).matches()) {
            throw ApiException.badRequest("a queue name is 1 to 128 characters of A-Z a-z 0-9 _ . : -, was '"
                    + JobRequests.clip(name) + "'");
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

    private static Map<String, Object> view(QueueSettings q) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", q.queue());
        m.put("paused", q.paused());
        m.put("maxRunning", q.maxRunning());
        m.put("tenantMaxRunning", q.tenantMaxRunning());
        m.put("updatedAt", q.updatedAt());
        return m;
    }

    private static Map<String, Object> view(TenantRunning t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", t.queue());
        m.put("tenant", t.tenant());
        m.put("running", t.running());
        return m;
    }
}
