package dev.docket.server.api;

import dev.docket.DocketAdmin;
import dev.docket.DoctorOptions;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.time.Duration;

/**
 * {@code GET /api/doctor} (the checks of {@link DocketAdmin#doctor}), {@code GET /api/workers} (the
 * registry) and {@code GET /api/jobs/{id}/explain} ("why is this job not running?"). Read-only, for any
 * role: none of them shows a payload or a session's statement text.
 */
public final class DoctorApi {

    private final DocketAdmin admin;

    public DoctorApi(DocketAdmin admin) {
        this.admin = admin;
    }

    public void register(Javalin app) {
        app.get("/api/doctor", this::doctor, Access.READ);
        app.get("/api/workers", ctx -> ctx.json(new OperationsViews.Workers(admin.workers().stream()
                .map(OperationsViews::worker).toList())), Access.READ);
        app.get("/api/jobs/{id}/explain", this::explain, Access.READ);
    }

    /** {@code ?longTransaction=30s}: the horizon check's threshold (default 5m), 0s to 1d. */
    private void doctor(Context ctx) {
        DoctorOptions options = DoctorOptions.defaults();
        String threshold = ctx.queryParam("longTransaction");
        if (threshold != null) {
            Duration d;
            try {
                d = JobRequests.parseDuration(threshold);
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("longTransaction: " + e.getMessage());
            }
            if (d.compareTo(Duration.ofDays(1)) > 0) {
                throw ApiException.badRequest("longTransaction must be at most 1d, was '" + JobRequests.clip(threshold) + "'");
            }
            options = options.withLongTransaction(d);
        }
        ctx.json(OperationsViews.doctor(admin.doctor(options)));
    }

    private void explain(Context ctx) {
        long id = Params.pathId(ctx);
        ctx.json(OperationsViews.explanation(admin.explain(id).orElseThrow(() -> ApiException.notFound("no job " + id))));
    }
}
