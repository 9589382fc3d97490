package dev.docket.server.api;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.Sessions;
import dev.docket.server.auth.TokenStore;
import io.javalin.Javalin;
import io.javalin.http.Context;

/**
 * {@code /api/session}: the dashboard's login (a token opens a session whose id travels in an
 * {@code HttpOnly}, {@code SameSite=Strict} cookie), logout, and who the caller is.
 *
 * @param tokens   what logins are checked against
 * @param sessions where logins open sessions
 * @param bodies   how request bodies are read
 */
public record SessionsApi(TokenStore tokens, Sessions sessions, JsonBodies bodies) {

    /** {@code POST /api/session}'s body; other fields are ignored. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record Login(String token) {
    }

    /** A session opened: the role, and the CSRF token every state-changing request must echo. */
    record Opened(String role, String csrfToken) {
    }

    record LoggedOut(boolean loggedOut) {
    }

    /** The caller's role and what it may do; for a session its CSRF token (the dashboard reads it after a reload). */
    record WhoAmI(String role, boolean seesPayloads, boolean canOperate, boolean canSignal, boolean canEnqueue,
                  @JsonInclude(JsonInclude.Include.NON_NULL) String csrfToken) {
    }

    /** Adds the routes: {@code POST} (public), {@code GET} and {@code DELETE /api/session}. */
    public void register(Javalin app) {
        app.post("/api/session", this::login, Access.PUBLIC);
        app.delete("/api/session", this::logout, Access.READ);
        app.get("/api/session", this::whoami, Access.READ);
    }

    private void login(Context ctx) {
        Login login = bodies.read(ctx, Login.class, "send {\"token\": \"...\"}");
        Role role = tokens.roleOf(login.token() == null ? "" : login.token())
                .orElseThrow(() -> new ApiException(401, "unauthorized", "unknown token"));
        Sessions.Session s = sessions.open(role);
        ctx.header("Set-Cookie", Sessions.COOKIE + "=" + s.id() + "; Path=/; HttpOnly; SameSite=Strict; Max-Age="
                + sessions.ttl().toSeconds() + (ctx.scheme().equals("https") ? "; Secure" : ""));
        ctx.json(new Opened(role.label(), s.csrfToken()));
    }

    private void logout(Context ctx) {
        sessions.close(ctx.cookie(Sessions.COOKIE));
        ctx.header("Set-Cookie", Sessions.COOKIE + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
        ctx.json(new LoggedOut(true));
    }

    private void whoami(Context ctx) {
        Caller caller = Caller.of(ctx);
        String csrf = caller.viaSession()
                ? sessions.find(ctx.cookie(Sessions.COOKIE)).map(Sessions.Session::csrfToken).orElse(null) : null;
        ctx.json(new WhoAmI(caller.role().label(), caller.role().seesPayloads(), caller.role().canOperate(),
                caller.role().canSignal(), caller.role().canEnqueue(), csrf));
    }
}
