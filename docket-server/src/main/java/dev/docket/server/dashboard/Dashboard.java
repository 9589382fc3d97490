package dev.docket.server.dashboard;

import dev.docket.server.api.Access;
import dev.docket.server.metrics.QueueMetrics;
import io.javalin.Javalin;
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

    public void register(Javalin app) {
        app.get("/", ctx -> ctx.redirect("/assets/index.html"), Access.PUBLIC);
        // Jetty's static handler labels text assets "charset=null"; they are UTF-8.
        app.after("/assets/*", ctx -> {
            String type = ctx.res().getContentType();
            if (type != null && type.endsWith(";charset=null")) {
                ctx.res().setContentType(type.substring(0, type.length() - ";charset=null".length()) + ";charset=utf-8");
            }
        });
        app.get("/api/stats/history", ctx -> ctx.json(history.view()), Access.READ);
    }
}
