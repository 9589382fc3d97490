package dev.docket.server.api;

import dev.docket.server.auth.Role;
import dev.docket.server.auth.Sessions;
import dev.docket.server.auth.TokenStore;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.security.RouteRole;
import java.util.Optional;
import java.util.Set;

/**
 * Who may call a matched route: every route declares its {@link Access}; anything but
 * {@link Access#PUBLIC} needs a bearer token, or a dashboard session cookie plus its CSRF token for
 * anything that changes state. Runs before the route (a before-matched handler) and attaches the
 * {@link Caller} to the request.
 *
 * @param tokens   the bearer tokens it checks
 * @param sessions the dashboard sessions it checks cookies against
 */
public record Authentication(TokenStore tokens, Sessions sessions) {

    /** @throws ApiException 401 without valid credentials, 403 for a role the route does not allow or a bad CSRF token */
    public void authenticate(Context ctx) {
        Set<RouteRole> roles = ctx.routeRoles();
        if (roles.contains(Access.PUBLIC)) {
            return;
        }
        Caller caller = bearer(ctx).or(() -> session(ctx)).orElseThrow(() ->
                new ApiException(401, "unauthorized", "a bearer token (Authorization: Bearer ...) or a dashboard "
                        + "session is required"));
        for (RouteRole r : roles) {
            if (r instanceof Access access && !access.allows(caller.role())) {
                throw new ApiException(403, "forbidden", "the " + caller.role().label() + " role may not do this");
            }
        }
        caller.attach(ctx);
    }

    private Optional<Caller> bearer(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null) {
            return Optional.empty();
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new ApiException(401, "unauthorized", "the Authorization header must be 'Bearer TOKEN'");
        }
        Role role = tokens.roleOf(header.substring(7).trim())
                .orElseThrow(() -> new ApiException(401, "unauthorized", "unknown token"));
        return Optional.of(new Caller(role, false));
    }

    private Optional<Caller> session(Context ctx) {
        Optional<Sessions.Session> session = sessions.find(ctx.cookie(Sessions.COOKIE));
        if (session.isEmpty()) {
            return Optional.empty();
        }
        boolean changesState = ctx.method() != HandlerType.GET && ctx.method() != HandlerType.HEAD;
        if (changesState && !Sessions.csrfMatches(session.get(), ctx.header(Sessions.CSRF_HEADER))) {
            throw new ApiException(403, "csrf", "missing or wrong " + Sessions.CSRF_HEADER + " header");
        }
        return Optional.of(new Caller(session.get().role(), true));
    }
}
