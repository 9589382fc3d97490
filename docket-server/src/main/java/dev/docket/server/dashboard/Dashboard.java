package dev.docket.server.dashboard;

import dev.docket.server.api.Access;
import dev.docket.server.metrics.QueueMetrics;
import io.javalin.Javalin;
import io.javalin.http.staticfiles.MimeTypesConfig;
import java.time.Duration;

/**
 * The web dashboard: a small client of plain HTML, CSS and JavaScript modules served from
 * {@code /dashboard/assets} in the jar (no CDN, nothing inline, so it runs under the server's strict
 * Content-Security-Policy), plus the one read-only endpoint only it needs: the last hour of
 * throughput for its charts.
 */
public final class Dashboard {

    /** How far back {@code /api/stats/history} reaches. */
    public static final Duration HISTORY_WINDOW = Duration.ofHours(1);

    private final StatsHistory history = new StatsHistory(HISTORY_WINDOW);

    public Dashboard(QueueMetrics metrics) {
        metrics.onRefresh(history::record);
    }

    /** The assets' types, all text in UTF-8 (Jetty would otherwise label them {@code charset=null}). */
    public static void mimeTypes(MimeTypesConfig types) {
        types.add("text/html; charset=utf-8", "html");
        types.add("text/css; charset=utf-8", "css");
        types.add("text/javascript; charset=utf-8", "js");
        types.add("image/svg+xml; charset=utf-8", "svg");
    }

    public void register(Javalin app) {
        app.get("/", ctx -> ctx.redirect("/assets/index.html"), Access.PUBLIC);
        app.get("/api/stats/history", ctx -> ctx.json(history.view()), Access.READ);
    }
}
