package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DocketAdmin;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.math.BigDecimal;
import java.time.Duration;

/**
 * {@code /api/slos}: the service-level objectives, stored in the database. {@code PUT} sets one:
 * {@code {"queue": "email", "lagSeconds": 30}} or {@code {"kind": "send_email", "pickupP99Seconds": 0.5}};
 * the value must be present, and {@code null} clears it (a body without it is refused, so that a typo
 * never clears an objective).
 *
 * @param admin  reads and sets the objectives
 * @param bodies reads request bodies
 */
public record SlosApi(DocketAdmin admin, JsonBodies bodies) {

    /** {@code PUT /api/slos}'s body; the objective fields are JSON trees so that an explicit null tells from an absent field. */
    record SloRequest(String queue, String kind, JsonNode lagSeconds, JsonNode pickupP99Seconds) {
    }

    public void register(Javalin app) {
        app.get("/api/slos", ctx -> ctx.json(slos()), Access.READ);
        app.put("/api/slos", this::set, Access.OPERATE);
    }

    private OperationsViews.Slos slos() {
        return new OperationsViews.Slos(admin.slos().stream().map(OperationsViews::slo).toList());
    }

    private void set(Context ctx) {
        String shape = "the body must be {\"queue\": NAME, \"lagSeconds\": N|null} or {\"kind\": KIND, "
                + "\"pickupP99Seconds\": N|null}";
        SloRequest body = bodies.read(ctx, SloRequest.class, shape);
        if ((body.queue() == null) == (body.kind() == null)) {
            throw ApiException.badRequest("give exactly one of queue and kind; " + shape);
        }
        if (body.queue() != null) {
            Duration lag = objective("lagSeconds", body.lagSeconds(), body.pickupP99Seconds(), "pickupP99Seconds", "a queue");
            admin.setQueueLagSlo(body.queue(), lag);
        } else {
            Duration p99 = objective("pickupP99Seconds", body.pickupP99Seconds(), body.lagSeconds(), "lagSeconds", "a kind");
            admin.setKindPickupSlo(body.kind(), p99);
        }
        ctx.json(slos());
    }

    /** The objective in {@code field}: null clears; a number of seconds, more than 0 and at most 30 days. */
    private static Duration objective(String field, JsonNode value, JsonNode other, String otherField, String target) {
        if (other != null) {
            throw ApiException.badRequest(otherField + " is not an objective of " + target + "; give " + field);
        }
        if (value == null) {
            throw ApiException.badRequest(field + " is required (a number of seconds, or null to clear it)");
        }
        if (value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw ApiException.badRequest(field + " must be a number of seconds or null");
        }
        BigDecimal seconds = value.decimalValue();
        BigDecimal max = BigDecimal.valueOf(DocketAdmin.MAX_SLO.toSeconds());
        if (seconds.signum() <= 0 || seconds.compareTo(max) > 0) {
            throw ApiException.badRequest(field + " must be more than 0 and at most " + max + " (30 days), was "
                    + JobRequests.clip(seconds.toString()));
        }
        long nanos = seconds.movePointRight(9).longValue();
        if (nanos < 1) {
            throw ApiException.badRequest(field + " must be at least 0.000000001, was " + JobRequests.clip(seconds.toString()));
        }
        return Duration.ofNanos(nanos);
    }
}
