package dev.docket.server.api;

import dev.docket.DeadJobGroup;
import dev.docket.DeadJobQuery;
import dev.docket.DocketAdmin;
import dev.docket.JobSummary;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /api/dlq}: triage and controlled replay of the dead-letter table. A bulk replay runs in
 * the background at a bounded rate (jobs per second), so replaying a day of failures does not put
 * a wall of jobs in front of everyone else; its progress is at {@code /api/dlq/replays/{id}}.
 */
public final class DlqApi {

    private static final Logger log = LoggerFactory.getLogger(DlqApi.class);
    /** Default replay rate, jobs per second. */
    public static final int DEFAULT_RATE = 100;
    /** Default and largest number of jobs one bulk replay takes. */
    public static final int DEFAULT_MAX = 10_000;
    public static final int LARGEST_MAX = 1_000_000;

    private final DocketAdmin admin;
    private final Bodies bodies;
    private final Map<Long, Replay> replays = new ConcurrentHashMap<>();
    private final AtomicLong nextReplay = new AtomicLong(1);

    /** A running or finished bulk replay. */
    private static final class Replay {
        final long id;
        final String kind;
        final String errorContains;
        final int rate;
        final int max;
        final AtomicInteger matched = new AtomicInteger();
        final AtomicInteger replayed = new AtomicInteger();
        volatile String state = "running";

        Replay(long id, String kind, String errorContains, int rate, int max) {
            this.id = id;
            this.kind = kind;
            this.errorContains = errorContains;
            this.rate = rate;
            this.max = max;
        }

        View view() {
            return new View(id, state, kind, errorContains, rate, matched.get(), replayed.get());
        }
    }

    /** A bulk replay's progress, as {@code /api/dlq/replays/{id}} shows it. */
    record View(long id, String state, String kind, String errorContains, int ratePerSecond, int matched,
                int replayed) {
    }

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
        ctx.json(Views.page(admin.deadJobs(query), query.limit()));
    }

    private void groups(Context ctx) {
        String kind = Params.blankToNull(ctx.queryParam("kind"));
        List<DeadJobGroup> groups;
        try {
            groups = admin.deadJobGroups(kind, Params.limit(ctx));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.json(new Views.Groups(groups.stream().map(Views::group).toList()));
    }

    private void retryOne(Context ctx) {
        long id = JobsApi.pathId(ctx);
        if (admin.replayDead(List.of(id)).isEmpty()) {
            throw ApiException.notFound("no dead job " + id + " (or a live job holds its unique key)");
        }
        ctx.json(new Views.JobStatus(id, "ready"));
    }

    /** {@code POST /api/dlq/retry}'s body: a filter (empty strings mean none) and a pace; every field optional. */
    record ReplayRequest(String kind, String errorContains, Integer ratePerSecond, Integer max) {
    }

    private void replayMatching(Context ctx) {
        ReplayRequest body = bodies.read(ctx, ReplayRequest.class, "the body must be a JSON object");
        String kind = Params.blankToNull(body.kind());
        String errorContains = Params.blankToNull(body.errorContains());
        int rate = integer("ratePerSecond", body.ratePerSecond(), DEFAULT_RATE, 1, 10_000);
        int max = integer("max", body.max(), DEFAULT_MAX, 1, LARGEST_MAX);
        try {
            DeadJobQuery.all().withKind(kind).withErrorContains(errorContains);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        Replay replay = new Replay(nextReplay.getAndIncrement(), kind, errorContains, rate, max);
        replays.put(replay.id, replay);
        Thread.ofVirtual().name("docket-replay-" + replay.id).start(() -> run(replay));
        ctx.status(202).json(replay.view());
    }

    private void replayStatus(Context ctx) {
        long id = JobsApi.pathId(ctx);
        Replay replay = replays.get(id);
        if (replay == null) {
            throw ApiException.notFound("no replay " + id);
        }
        ctx.json(replay.view());
    }

    /** Collects the matching ids first (a stable set), then replays them one second's worth at a time. */
    private void run(Replay replay) {
        try {
            List<Long> ids = new ArrayList<>();
            Long before = null;
            while (ids.size() < replay.max) {
                int want = Math.min(1000, replay.max - ids.size());
                List<JobSummary> page = admin.deadJobs(new DeadJobQuery(replay.kind, replay.errorContains, before, want));
                page.forEach(j -> ids.add(j.id()));
                if (page.size() < want) {
                    break;
                }
                before = page.getLast().id();
            }
            replay.matched.set(ids.size());
            for (int from = 0; from < ids.size(); from += replay.rate) {
                long started = System.nanoTime();
                List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + replay.rate));
                replay.replayed.addAndGet(admin.replayDead(chunk).size());
                long left = 1_000_000_000L - (System.nanoTime() - started);
                if (left > 0 && from + replay.rate < ids.size()) {
                    Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                }
            }
            replay.state = "done";
        } catch (InterruptedException e) {
            replay.state = "interrupted";
        } catch (RuntimeException e) {
            replay.state = "failed: " + e.getMessage();
            log.warn("docket: dead-letter replay {} failed: {}", replay.id, e.getMessage());
        }
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
