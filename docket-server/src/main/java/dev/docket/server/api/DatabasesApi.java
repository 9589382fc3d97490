package dev.docket.server.api;

import dev.docket.DatabasesDoctorReport;
import dev.docket.Docket;
import dev.docket.DocketRouter;
import dev.docket.DoctorOptions;
import dev.docket.JobInfo;
import dev.docket.QueueStats;
import dev.docket.internal.rules.TextRules;
import dev.docket.server.metrics.QueueMetrics;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code /api/databases}: a server of several databases, each named ({@code docket serve --database
 * NAME=URL}). The rest of the API is the default database's, unchanged; these routes show every
 * database and reach a job of any, addressed as {@code database/id} (ids are per database).
 *
 * @param databases each database's Docket by name, the default first
 * @param metrics   each database's metrics by name (for the per-minute rates)
 */
public record DatabasesApi(Map<String, Docket> databases, Map<String, QueueMetrics> metrics) {

    /** One database: its queues, its workers and how many dead jobs it holds. */
    record DatabaseView(String name, boolean isDefault, List<ResponseViews.Stats> queues,
                        List<OperationsViews.Worker> workers, long deadJobs) {
    }

    record Databases(String defaultDatabase, List<DatabaseView> databases) {
    }

    public void register(Javalin app) {
        app.get("/api/databases", this::list, Access.READ);
        app.get("/api/databases/doctor", this::doctor, Access.READ);
        app.get("/api/databases/{database}/jobs/{id}", this::job, Access.READ);
    }

    private void list(Context ctx) {
        List<DatabaseView> views = new ArrayList<>();
        String first = databases.keySet().iterator().next();
        databases.forEach((name, docket) -> {
            List<QueueStats> stats = metrics.get(name).withClusterRates(docket.admin().stats());
            views.add(new DatabaseView(name, name.equals(first), stats.stream().map(ResponseViews::stats).toList(),
                    docket.admin().workers().stream().map(OperationsViews::worker).toList(),
                    stats.stream().mapToLong(QueueStats::dead).sum()));
        });
        ctx.json(new Databases(first, views));
    }

    private void doctor(Context ctx) {
        DatabasesDoctorReport report = DocketRouter.doctor(databases, DoctorOptions.defaults());
        ctx.json(OperationsViews.doctor(report));
    }

    private void job(Context ctx) {
        Docket docket = database(ctx.pathParam("database"));
        long id = Params.pathId(ctx);
        JobInfo job = docket.job(id).orElseThrow(() -> ApiException.notFound("no job " + ctx.pathParam("database")
                + "/" + id));
        ctx.json(ResponseViews.job(job, Caller.of(ctx).role().seesPayloads()));
    }

    private Docket database(String name) {
        Docket docket = name.length() > 63 ? null : databases.get(name);
        if (docket == null) {
            throw ApiException.notFound("no database " + TextRules.describe(name) + "; databases: " + databases.keySet());
        }
        return docket;
    }
}
