package dev.docket.server.api;

import dev.docket.server.auth.Role;
import io.javalin.http.Context;

/** Who is calling, as the authentication filter found it; stored on the request. */
public record Caller(Role role, boolean viaSession) {

    private static final String ATTRIBUTE = "docket.caller";

    public static Caller of(Context ctx) {
        Caller c = ctx.attribute(ATTRIBUTE);
        if (c == null) {
            throw new ApiException(401, "unauthorized", "a bearer token or a dashboard session is required");
        }
        return c;
    }

    public void attach(Context ctx) {
        ctx.attribute(ATTRIBUTE, this);
    }
}
