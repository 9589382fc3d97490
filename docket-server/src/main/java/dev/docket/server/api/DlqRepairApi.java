package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DeadJobQuery;
import dev.docket.DeadJobRepair;
import dev.docket.DocketAdmin;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.List;

/**
 * Repair of dead jobs' payloads before a replay, for roles that may see payloads
 * ({@link Access#REPAIR}): {@code PUT /api/dlq/{id}/payload} replaces one job's payload,
 * {@code POST /api/dlq/repair} applies a JSON merge patch (RFC 7386) to every job of a group (kind
 * and error signature). Each repair is recorded in the job's metadata ({@code docket.repairs}) with
 * who made it: the name the caller gives, if any, and the role and channel it came through.
 *
 * @param admin  repairs dead jobs
 * @param bodies reads request bodies
 */
public record DlqRepairApi(DocketAdmin admin, JsonBodies bodies) {

    /** Default number of jobs one group repair looks at. */
    public static final int DEFAULT_MAX = 1000;
    /** The longest name a caller may give as {@code repairedBy}. */
    public static final int MAX_NAME = 100;

    public void register(Javalin app) {
        app.put("/api/dlq/{id}/payload", this::replace, Access.REPAIR);
        app.post("/api/dlq/repair", this::patchGroup, Access.REPAIR);
    }

    /** {@code PUT /api/dlq/{id}/payload}'s body: the new payload (required) and, optionally, who repairs it. */
    record PayloadRequest(JsonNode payload, String repairedBy) {
    }

    /** A repaired dead job: still dead until it is replayed. */
    record Repaired(long id, String state, String repairedBy) {
    }

    /** {@code POST /api/dlq/repair}'s body: the group, the patch and how far to go. */
    record GroupRequest(String kind, String signature, String errorContains, JsonNode mergePatch, Integer max,
                        Boolean dryRun, String repairedBy) {
    }

    /** What a group repair did: how many jobs it looked at, which it changed (or would, in a dry run). */
    record GroupRepaired(int matched, List<Long> changed, boolean dryRun, String repairedBy) {
    }

    private void replace(Context ctx) {
        long id = Params.pathId(ctx);
        PayloadRequest body = bodies.read(ctx, PayloadRequest.class, "the body must be {\"payload\": ...}");
        if (body.payload() == null || body.payload().isNull()) {
            throw ApiException.badRequest("payload is required (use {} for none)");
        }
        String by = repairedBy(ctx, body.repairedBy());
        boolean repaired;
        try {
            PayloadCheck.check(body.payload());
            repaired = admin.repairDead(id, body.payload().toString(), by);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("payload is ")) {
                throw new ApiException(413, "payload_too_large", e.getMessage());
            }
            throw ApiException.badRequest(e.getMessage());
        }
        if (!repaired) {
            throw ApiException.notFound("no dead job " + id);
        }
        ctx.json(new Repaired(id, "dead", by));
    }

    private void patchGroup(Context ctx) {
        GroupRequest body = bodies.read(ctx, GroupRequest.class, "the body must be a JSON object");
        if (body.kind() == null || body.kind().isEmpty() || body.signature() == null || body.signature().isEmpty()) {
            throw ApiException.badRequest("kind and signature are required: they name the group (see /api/dlq/groups)");
        }
        if (body.mergePatch() == null) {
            throw ApiException.badRequest("mergePatch is required: a JSON object (RFC 7386)");
        }
        int max = body.max() == null ? DEFAULT_MAX : body.max();
        if (max < 1 || max > DocketAdmin.MAX_GROUP_REPAIR) {
            throw ApiException.badRequest("max must be a whole number from 1 to " + DocketAdmin.MAX_GROUP_REPAIR);
        }
        String by = repairedBy(ctx, body.repairedBy());
        DeadJobRepair result;
        try {
            PayloadCheck.check(body.mergePatch());
            DeadJobQuery group = DeadJobQuery.all().withKind(body.kind()).withSignature(body.signature())
                    .withErrorContains(Params.blankToNull(body.errorContains()));
            result = admin.repairDeadGroup(group, body.mergePatch().toString(), by, max,
                    Boolean.TRUE.equals(body.dryRun()));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        ctx.json(new GroupRepaired(result.matched(), result.changed(), result.dryRun(), by));
    }

    /** Who repairs, as recorded: the given name (if any) with the caller's role and channel. */
    private static String repairedBy(Context ctx, String name) {
        Caller caller = Caller.of(ctx);
        String channel = caller.role().label() + ", " + (caller.viaSession() ? "dashboard" : "API token");
        if (name == null || name.isEmpty()) {
            return channel;
        }
        // The library refuses anything unprintable in the whole record (DocketAdmin.repairDead).
        if (name.length() > MAX_NAME || name.isBlank()) {
            throw ApiException.badRequest("repairedBy must be 1 to " + MAX_NAME + " printable characters");
        }
        return name + " (" + channel + ")";
    }
}
