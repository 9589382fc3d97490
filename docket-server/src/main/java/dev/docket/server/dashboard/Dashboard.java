package dev.docket.server.dashboard;

import io.javalin.Javalin;

/** The web dashboard's pages; its assets are served from {@code /dashboard/assets} in the jar. */
public final class Dashboard {

    public void register(Javalin app) {
        app.get("/", ctx -> ctx.redirect("/assets/index.html"), dev.docket.server.api.Access.PUBLIC);
    }
}
