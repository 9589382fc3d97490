package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DeadJobGroup;
import dev.docket.DeadJobQuery;
import dev.docket.DeadJobReplay;
import dev.docket.DocketAdmin;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code /api/dlq}: triage and controlled replay of the dead-letter table. A bulk replay runs at a
 * bounded rate (jobs per second), so replaying a day of failures does not put a wall of jobs in front
 * of everyone else; the library carries it out ({@link DocketAdmin#startReplay}) and keeps its
 * progress in the database, at {@code /api/dlq/replays/{id}} also after a restart.
 */
public final class DlqApi {

    private static final Set<String> REPLAY_FIELDS = Set.of("kind", "errorContains", "ratePerSecond", "max");
    /** Default replay rate, jobs per second. */
    public static final int DEFAULT_RATE = 100;
    /** Default and largest number of jobs one bulk replay takes. */
    public static final int DEFAULT_MAX = 10_000;
    public static final int LARGEST_MAX = 1_000_000;

    private final DocketAdmin admin;
    private final Bodies bodies;

    public DlqApi(DocketAdmin admin, Bodies bodies) {
        this.admin = admin;
        this.bodies = bodies;
    }

    public void register(Javalin app) {
        app.get("/api/dlq", this::list, Access.READ);
        app.get("/api/dlq/groups", this::groups, Access.READ);
        app.post("/api/dlq/retry", this::replayMatching, Access.OPERATE);
        app.get("/api/dlq/replays/{id}", this::replayStatus, Access.READ);
        app.post("/api/dlq/{id}/retry", this::retryOne, Access.OPERATE);
    }

    private void list(Context ctx) {
        DeadJobQuery query;
        try {
            query = DeadJobQuery.all().withLimit(Params.limit(ctx)).withBefore(Params.cursor(ctx))
                    .withKind(Params.blankToNull(ctx.queryParam("kind")))
                    .withErrorContains(Params.text(ctx, "errorContains"));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.json(Views.page("jobs", admin.deadJobs(query), query.limit()));
    }

    private void groups(Context ctx) {
        String kind = Params.blankToNull(ctx.queryParam("kind"));
        List<DeadJobGroup> groups;
        try {
            groups = admin.deadJobGroups(kind, Params.limit(ctx));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.json(Map.of("groups", groups.stream().map(g -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("kind", g.kind());
            m.put("error", g.error());
            m.put("count", g.count());
            m.put("firstDiedAt", g.firstDiedAt());
            m.put("lastDiedAt", g.lastDiedAt());
            return m;
        }).toList()));
    }

    private void retryOne(Context ctx) {
        long id = JobsApi.pathId(ctx);
        if (admin.replayDead(List.of(id)).isEmpty()) {
            throw ApiException.notFound("no dead job " + id + " (or a live job holds its unique key)");
        }
        ctx.json(Map.of("id", id, "state", "ready"));
    }

    private void replayMatching(Context ctx) {
        JsonNode body = bodies.json(ctx);
        if (!body.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object");
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!REPLAY_FIELDS.contains(name)) {
                throw ApiException.badRequest("unknown field '" + JobRequests.clip(name) + "'; fields are " + REPLAY_FIELDS);
            }
        }
        String kind = text(body, "kind");
        String errorContains = text(body, "errorContains");
        int rate = integer(body, "ratePerSecond", DEFAULT_RATE, 1, 10_000);
        int max = integer(body, "max", DEFAULT_MAX, 1, LARGEST_MAX);
        try {
            DeadJobQuery.all().withKind(kind).withErrorContains(errorContains);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        DeadJobReplay replay = admin.startReplay(DeadJobQuery.all().withKind(kind).withErrorContains(errorContains), rate, max);
        ctx.status(202).json(view(replay));
    }

    private void replayStatus(Context ctx) {
        long id = JobsApi.pathId(ctx);
        DeadJobReplay replay = admin.replay(id).orElseThrow(() -> ApiException.notFound("no replay " + id));
        ctx.json(view(replay));
    }

    /** A replay's progress; the rate is a whole number, as the request gave it. */
    private static Map<String, Object> view(DeadJobReplay replay) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", replay.id());
        m.put("state", replay.state().name().toLowerCase(Locale.ROOT));
        m.put("kind", replay.kind());
        m.put("errorContains", replay.errorContains());
        m.put("ratePerSecond", Math.round(replay.ratePerSecond()));
        m.put("matched", replay.matched());
        m.put("replayed", replay.replayed());
        return m;
    }

    private static String text(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw ApiException.badRequest(field + " must be a string");
        }
        if (n.asText().indexOf('\0') >= 0) {
            throw ApiException.badRequest(field + " must not contain NUL characters");
        }
        return n.asText().isEmpty() ? null : n.asText();
    }

    private static int integer(JsonNode body, String field, int otherwise, int min, int max) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return otherwise;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() < min || n.asInt() > max) {
            throw ApiException.badRequest(field + " must be a whole number from " + min + " to " + max);
        }
        return n.asInt();
    }
}
