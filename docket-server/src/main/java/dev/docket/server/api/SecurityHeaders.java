package dev.docket.server.api;

import io.javalin.http.Context;
import java.util.Map;

/**
 * The headers on every response, errors and static dashboard assets included: a strict
 * Content-Security-Policy (the dashboard has no inline script and loads nothing from elsewhere),
 * no MIME sniffing, no framing, no referrer; and {@code no-store} on the API.
 */
public final class SecurityHeaders {

    /** The headers and their values, for the places that write responses outside Javalin. */
    public static final Map<String, String> HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; "
                    + "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            "X-Content-Type-Options", "nosniff",
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer");

    private SecurityHeaders() {
    }

    /** Sets the headers on a response Javalin writes (an after-handler). */
    public static void apply(Context ctx) {
        HEADERS.forEach(ctx::header);
        if (ctx.path().startsWith("/api")) {
            ctx.header("Cache-Control", "no-store");
        }
    }
}
