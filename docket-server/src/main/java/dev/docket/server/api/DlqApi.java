package dev.docket.server.api;

import dev.docket.DeadJobGroup;
import dev.docket.DeadJobQuery;
import dev.docket.DeadJobReplay;
import dev.docket.DocketAdmin;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;

/**
 * {@code /api/dlq}: triage and controlled replay of the dead-letter table. A bulk replay runs at a
 * bounded rate (jobs per second), so replaying a day of failures does not put a wall of jobs in front
 * of everyone else; the library carries it out ({@link DocketAdmin#startDeadJobReplay}) and keeps its
 * progress in the database, at {@code /api/dlq/replays/{id}} also after a restart. Listings, groups
 * and replays work by error signature too ({@link dev.docket.DeadJobGroup}); repairs of payloads are
 * {@link DlqRepairApi}'s.
 *
 * @param admin  lists, groups and replays dead jobs
 * @param bodies reads request bodies
 */
public record DlqApi(DocketAdmin admin, JsonBodies bodies) {

    /** Default replay rate, jobs per second. */
    public static final int DEFAULT_RATE = 100;
    /** The most jobs per second a replay takes, for the API, the dashboard and {@code docket dlq replay --rate}. */
    public static final int MAX_RATE = 10_000;
    /** Default and largest number of jobs one bulk replay takes. */
    public static final int DEFAULT_MAX = 10_000;
    public static final int LARGEST_MAX = 1_000_000;

    /** A bulk replay's progress, as {@code /api/dlq/replays/{id}} shows it. */
    record View(long id, String state, String kind, String errorContains, String signature, int ratePerSecond,
                int matched, int replayed) {
    }

    public void register(Javalin app) {
        app.get("/api/dlq", this::list, Access.READ);
        app.get("/api/dlq/groups", this::groups, Access.READ);
        app.post("/api/dlq/retry", this::replayMatching, Access.OPERATE);
        app.get("/api/dlq/replays/{id}", this::replayStatus, Access.READ);
        app.post("/api/dlq/{id}/retry", this::retryOne, Access.OPERATE);
        app.delete("/api/dlq/{id}", this::discardOne, Access.OPERATE);
    }

    private void list(Context ctx) {
        DeadJobQuery query;
        try {
            query = DeadJobQuery.all().withLimit(Params.limit(ctx)).withBefore(Params.cursor(ctx))
                    .withKind(Params.blankToNull(ctx.queryParam("kind")))
                    .withErrorContains(Params.text(ctx, "errorContains"))
                    .withSignature(Params.text(ctx, "signature"));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.json(ResponseViews.page(admin.deadJobs(query), query.limit()));
    }

    private void groups(Context ctx) {
        String kind = Params.blankToNull(ctx.queryParam("kind"));
        List<DeadJobGroup> groups;
        try {
            groups = admin.deadJobGroups(kind, Params.limit(ctx));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.json(new ResponseViews.Groups(groups.stream().map(ResponseViews::group).toList()));
    }

    private void retryOne(Context ctx) {
        long id = Params.pathId(ctx);
        if (admin.replayDead(List.of(id)).isEmpty()) {
            throw ApiException.notFound("no dead job " + id + " (or a live job holds its unique key)");
        }
        ctx.json(new ResponseViews.JobStatus(id, "ready"));
    }

    /** Discards a dead job for good; one that halted its sequence lets the sequence's next job run. */
    private void discardOne(Context ctx) {
        long id = Params.pathId(ctx);
        if (!admin.discardDead(id)) {
            throw ApiException.notFound("no dead job " + id);
        }
        ctx.json(new ResponseViews.JobStatus(id, "discarded"));
    }

    /** {@code POST /api/dlq/retry}'s body: a filter (empty strings mean none) and a pace; every field optional. */
    record ReplayRequest(String kind, String errorContains, String signature, Integer ratePerSecond, Integer max) {
    }

    private void replayMatching(Context ctx) {
        ReplayRequest body = bodies.read(ctx, ReplayRequest.class, "the body must be a JSON object");
        String kind = Params.blankToNull(body.kind());
        String errorContains = Params.blankToNull(body.errorContains());
        int rate = integer("ratePerSecond", body.ratePerSecond(), DEFAULT_RATE, 1, MAX_RATE);
        int max = integer("max", body.max(), DEFAULT_MAX, 1, LARGEST_MAX);
        DeadJobQuery filter;
        try {
            filter = DeadJobQuery.all().withKind(kind).withErrorContains(errorContains)
                    .withSignature(Params.blankToNull(body.signature()));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        DeadJobReplay replay = admin.startDeadJobReplay(filter, rate, max);
        ctx.status(202).json(view(replay));
    }

    private void replayStatus(Context ctx) {
        long id = Params.pathId(ctx);
        DeadJobReplay replay = admin.deadJobReplay(id).orElseThrow(() -> ApiException.notFound("no replay " + id));
        ctx.json(view(replay));
    }

    /** A replay's progress; the rate is a whole number, as the request gave it. */
    private static View view(DeadJobReplay replay) {
        return new View(replay.id(), replay.state().name().toLowerCase(Locale.ROOT), replay.kind(),
                replay.errorContains(), replay.signature(), (int) Math.round(replay.ratePerSecond()), replay.matched(),
                replay.replayed());
    }

    private static int integer(String field, Integer value, int otherwise, int min, int max) {
        if (value == null) {
            return otherwise;
        }
        if (value < min || value > max) {
            throw ApiException.badRequest(field + " must be a whole number from " + min + " to " + max);
        }
        return value;
    }
}
