package dev.docket.server.api;

import dev.docket.DocketAdmin;
import dev.docket.RateLimit;
import dev.docket.RateLimitSettings;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * {@code /api/rate-limits}: the rate limits in force (at most {@code permits} starts per {@code period} of
 * a kind or a queue, cluster-wide), and their edits at run time. Setting a limit on a kind or queue that
 * is not known ({@link DocketAdmin#knowsKind}, {@link DocketAdmin#knowsQueue}) is a 404 unless the request
 * asks to create it ({@code ?create=true}), as for queue settings.
 *
 * @param admin  reads and changes the limits
 * @param bodies reads request bodies
 */
public record RateLimitsApi(DocketAdmin admin, JsonBodies bodies) {

    public void register(Javalin app) {
        app.get("/api/rate-limits", this::list, Access.READ);
        app.put("/api/rate-limits/{scope}/{name}", this::set, Access.OPERATE);
        app.delete("/api/rate-limits/{scope}/{name}", this::remove, Access.OPERATE);
    }

    /** {@code PUT}'s body: {@code {"permits": 50, "period": "1s", "perTenant": false}}; perTenant is optional. */
    record LimitRequest(Integer permits, String period, Boolean perTenant) {
    }

    /** One limit as the API shows it; {@code period} ISO-8601, {@code periodMs} the same in milliseconds. */
    public record Limit(String scope, String name, int permits, String period, long periodMs, boolean perTenant,
                        boolean edited, Instant updatedAt) {
    }

    /** {@code GET /api/rate-limits}. */
    public record Limits(List<Limit> rateLimits) {
    }

    /** {@code DELETE}'s answer. */
    record Removed(String scope, String name, boolean removed) {
    }

    private void list(Context ctx) {
        ctx.json(new Limits(admin.rateLimits().stream().map(RateLimitsApi::view).toList()));
    }

    private void set(Context ctx) {
        RateLimit.Scope scope = scope(ctx);
        String name = ctx.pathParam("name");
        String shape = "the body must be {\"permits\": N, \"period\": \"PT1S\", \"perTenant\": false}";
        LimitRequest body = bodies.read(ctx, LimitRequest.class, shape);
        if (body.permits() == null || body.period() == null) {
            throw ApiException.badRequest("permits and period are required; " + shape);
        }
        RateLimit limit = new RateLimit(scope, name, body.permits(), period(body.period()),
                Boolean.TRUE.equals(body.perTenant()));
        String create = ctx.queryParam("create");
        if (create != null && !create.equals("true") && !create.equals("false")) {
            throw ApiException.badRequest("create must be true or false, was '" + JobRequests.clip(create) + "'");
        }
        boolean known = scope == RateLimit.Scope.KIND ? admin.knowsKind(name) : admin.knowsQueue(name);
        if (!known && !"true".equals(create)) {
            throw ApiException.notFound("no " + label(scope) + " " + name + " is known (no limit, no jobs, no worker); "
                    + "add ?create=true to limit it anyway");
        }
        admin.setRateLimit(limit, true);
        ctx.json(admin.rateLimits().stream().filter(s -> s.limit().scope() == scope && s.limit().name().equals(name))
                .map(RateLimitsApi::view).findFirst().orElseThrow());
    }

    private void remove(Context ctx) {
        RateLimit.Scope scope = scope(ctx);
        String name = ctx.pathParam("name");
        if (!admin.removeRateLimit(scope, name)) {
            throw ApiException.notFound("no rate limit on " + label(scope) + " " + name);
        }
        ctx.json(new Removed(label(scope), name, true));
    }

    private static RateLimit.Scope scope(Context ctx) {
        return switch (ctx.pathParam("scope")) {
            case "kind" -> RateLimit.Scope.KIND;
            case "queue" -> RateLimit.Scope.QUEUE;
            default -> throw ApiException.badRequest("the scope must be kind or queue, was '"
                    + JobRequests.clip(ctx.pathParam("scope")) + "'");
        };
    }

    /** A duration as the API's other fields take it ({@code 500ms}, {@code 1s}, {@code 1m}, {@code PT1S}); the limit checks its range. */
    private static Duration period(String text) {
        try {
            return JobRequests.parseDuration(text);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw ApiException.badRequest("period must be a duration such as 500ms, 1s, 1m or PT1S, was '"
                    + JobRequests.clip(text) + "'");
        }
    }

    private static String label(RateLimit.Scope scope) {
        return scope.name().toLowerCase(Locale.ROOT);
    }

    static Limit view(RateLimitSettings s) {
        RateLimit l = s.limit();
        return new Limit(label(l.scope()), l.name(), l.permits(), l.period().toString(), l.period().toMillis(),
                l.perTenant(), s.edited(), s.updatedAt());
    }
}
