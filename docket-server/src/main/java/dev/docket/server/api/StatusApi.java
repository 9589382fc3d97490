package dev.docket.server.api;

import dev.docket.Docket;
import dev.docket.QueueStats;
import dev.docket.server.metrics.QueueMetrics;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The operational endpoints: {@code /health} (the process answers), {@code /ready} (the database
 * answers and its schema is the version this server needs), {@code /metrics} (Prometheus),
 * {@code /api/stats} and the OpenAPI document.
 *
 * @param docket  where readiness and statistics are read
 * @param metrics what {@code /metrics} serves
 */
public record StatusApi(Docket docket, QueueMetrics metrics) {

    record Health(String status) {
    }

    record Ready(String status, int schemaVersion) {
    }

    /** Adds the routes; health, readiness and the OpenAPI document are public. */
    public void register(Javalin app) {
        app.get("/health", ctx -> ctx.json(new Health("ok")), Access.PUBLIC);
        app.get("/ready", this::ready, Access.PUBLIC);
        app.get("/metrics", ctx -> ctx.contentType(metrics.contentType()).result(metrics.scrape()), Access.READ);
        app.get("/api/openapi.json", StatusApi::openApi, Access.PUBLIC);
        app.get("/api/stats", this::stats, Access.READ);
    }

    private void ready(Context ctx) {
        int version;
        try {
            version = docket.schemaVersion();
        } catch (RuntimeException e) {
            ApiErrors.write(ctx, 503, "not_ready", "database unreachable");
            return;
        }
        if (version != Docket.supportedSchemaVersion()) {
            ApiErrors.write(ctx, 503, "not_ready", "schema " + docket.schema() + " is at version " + version
                    + ", this server needs " + Docket.supportedSchemaVersion() + ": run `docket migrate`");
            return;
        }
        ctx.json(new Ready("ready", version));
    }

    /** Read now; the per-minute figures are the cluster counters' rates ({@link QueueMetrics#withClusterRates}). */
    private void stats(Context ctx) {
        List<QueueStats> stats = metrics.withClusterRates(docket.admin().stats());
        ctx.json(new ResponseViews.StatsList(stats.stream().map(ResponseViews::stats).toList()));
    }

    private static void openApi(Context ctx) throws IOException {
        try (InputStream in = StatusApi.class.getResourceAsStream("/openapi.json")) {
            if (in == null) {
                throw ApiException.notFound("no OpenAPI document in this build");
            }
            ctx.contentType("application/json").result(in.readAllBytes());
        }
    }
}
