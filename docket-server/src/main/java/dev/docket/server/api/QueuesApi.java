package dev.docket.server.api;

import dev.docket.DocketAdmin;
import dev.docket.QueueSettings;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code /api/queues}: the queues' cluster-wide settings, and pausing and resuming a queue. */
public final class QueuesApi {

    private final DocketAdmin admin;

    public QueuesApi(DocketAdmin admin) {
        this.admin = admin;
    }

    public void register(Javalin app) {
        app.get("/api/queues", this::list, Access.READ);
        app.post("/api/queues/{queue}/pause", ctx -> setPaused(ctx, true), Access.OPERATE);
        app.post("/api/queues/{queue}/resume", ctx -> setPaused(ctx, false), Access.OPERATE);
    }

    /** Only the queues with settings of their own (paused or capped); any other queue has the defaults. */
    private void list(Context ctx) {
        ctx.json(Map.of("queues", admin.queues().stream().map(QueuesApi::view).toList()));
    }

    private void setPaused(Context ctx, boolean paused) {
        String queue = ctx.pathParam("queue");
        try {
            if (paused) {
                admin.pauseQueue(queue);
            } else {
                admin.resumeQueue(queue);
            }
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("queue must be 1 to 128 characters of A-Z a-z 0-9 _ . : -, was '"
                    + JobRequests.clip(queue) + "'");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("queue", queue);
        body.put("paused", paused);
        ctx.json(body);
    }

    static Map<String, Object> view(QueueSettings q) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queue", q.queue());
        m.put("paused", q.paused());
        m.put("maxRunning", q.maxRunning());
        m.put("tenantMaxRunning", q.tenantMaxRunning());
        m.put("updatedAt", q.updatedAt());
        return m;
    }
}
