package dev.docket.server.api;

import io.javalin.http.Context;

/** Query parameters shared by the listings: {@code limit} (1..1000, default 50) and {@code after} (a job id). */
final class Params {

    private Params() {
    }

    static int limit(Context ctx) {
        String raw = ctx.queryParam("limit");
        if (raw == null || raw.isEmpty()) {
            return 50;
        }
        try {
            int limit = Integer.parseInt(raw);
            if (limit >= 1 && limit <= 1000) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest("limit must be a whole number from 1 to 1000, was '" + JobRequests.clip(raw) + "'");
    }

    /** The keyset cursor: the last id of the previous page (newest first), or null. */
    static Long cursor(Context ctx) {
        String raw = ctx.queryParam("after");
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        try {
            long id = Long.parseLong(raw);
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiException.badRequest("after must be a job id (a positive whole number), was '" + JobRequests.clip(raw) + "'");
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
