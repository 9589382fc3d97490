package dev.docket.server.api;

import io.javalin.http.Context;

/**
 * Parameters shared by the routes: the listings' {@code limit} (1..1000, default 50) and {@code after}
 * (a job id), and the path's {@code {id}}.
 */
final class Params {

    private Params() {
    }

    static int limit(Context ctx) {
        String raw = ctx.queryParam("limit");
        if (raw == null || raw.isEmpty()) {
            return 50;
        }
        return (int) whole(raw, 1000, "limit must be a whole number from 1 to 1000");
    }

    /** The keyset cursor: the last id of the previous page (newest first), or null. */
    static Long cursor(Context ctx) {
        String raw = ctx.queryParam("after");
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        return whole(raw, Long.MAX_VALUE, "after must be a job id (a positive whole number)");
    }

    /** The path's {@code {id}}: of a job, a dead job, a replay or a workflow, all positive whole numbers. */
    static long pathId(Context ctx) {
        return whole(ctx.pathParam("id"), Long.MAX_VALUE, "a " + idOf(ctx.matchedPath()) + " id is a positive whole number");
    }

    /** What the path's id names, from the route: {@code /api/workflows/{id}} takes a workflow id. */
    static String idOf(String route) {
        if (route.startsWith("/api/workflows/")) {
            return "workflow";
        }
        if (route.startsWith("/api/dlq/replays/")) {
            return "replay";
        }
        if (route.startsWith("/api/dlq/")) {
            return "dead job";
        }
        return "job";
    }

    /** {@code raw} as a whole number from 1 to {@code max}; else a 400 with {@code rule} and what was sent. */
    private static long whole(String raw, long max, String rule) {
        try {
            long n = Long.parseLong(raw);
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest(rule + ", was '" + JobRequests.clip(raw) + "'");
    }

    static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /** A free-text parameter, or null when absent or empty; PostgreSQL text cannot hold NUL. */
    static String text(Context ctx, String name) {
        String value = blankToNull(ctx.queryParam(name));
        if (value != null && value.indexOf('\0') >= 0) {
            throw ApiException.badRequest(name + " must not contain NUL characters");
        }
        return value;
    }
}
