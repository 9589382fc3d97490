package dev.docket.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DocketAdmin;
import dev.docket.ScheduleDefinition;
import dev.docket.ScheduleInfo;
import dev.docket.ScheduleRun;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code /api/schedules}: periodic jobs, the ones stored at run time and the ones declared in code (read-only),
 * each with its next slots and last runs; and the changes to stored ones, for roles that operate
 * ({@link Access#OPERATE}). Each change records who made it: the name the caller gives ({@code changedBy}),
 * if any, with the caller's role and channel, as dead-job repairs do. Payloads are shown only to roles that
 * see payloads.
 *
 * @param admin  reads and changes schedules
 * @param bodies reads request bodies
 */
public record SchedulesApi(DocketAdmin admin, JsonBodies bodies) {

    /** The longest name a caller may give as {@code changedBy} (the role and channel are added to it). */
    public static final int MAX_NAME = 100;
    /** How many next slots and last runs each schedule shows. */
    static final int SHOWN = 5;

    public void register(Javalin app) {
        app.get("/api/schedules", this::list, Access.READ);
        app.post("/api/schedules", this::create, Access.OPERATE);
        app.get("/api/schedules/{name}", this::one, Access.READ);
        app.put("/api/schedules/{name}", this::edit, Access.OPERATE);
        app.delete("/api/schedules/{name}", this::delete, Access.OPERATE);
        app.post("/api/schedules/{name}/pause", ctx -> pause(ctx, true), Access.OPERATE);
        app.post("/api/schedules/{name}/resume", ctx -> pause(ctx, false), Access.OPERATE);
    }

    /** {@code POST} and {@code PUT}'s body; {@code name} is required for a create, and must match the path for an edit. */
    record ScheduleRequest(String name, String cron, String zone, String kind, JsonNode payload, String queue,
                           Integer priority, Integer maxAttempts, String catchUp, String changedBy) {
    }

    /** {@code pause}, {@code resume} and {@code DELETE}'s optional body. */
    record ChangeRequest(String changedBy) {
    }

    /** A slot: the instant, and the same wall-clock time in the schedule's zone. */
    record Slot(Instant at, String local) {
    }

    /** A run: the slot, its job (see {@code /api/jobs/{id}}) and the job's state now ({@code gone} once pruned). */
    record Run(Instant slot, long jobId, Instant enqueuedAt, String state) {
    }

    /** One schedule as the API shows it. */
    public record Schedule(String name, String origin, boolean editable, String cron, String zone, String kind,
                           @JsonInclude(JsonInclude.Include.NON_NULL) RawJson payload,
                           @JsonInclude(JsonInclude.Include.NON_NULL) Boolean payloadRedacted,
                           String queue, Integer priority, Integer maxAttempts, String catchUp, boolean paused,
                           boolean kindServed, long version, Instant createdAt, String createdBy, Instant updatedAt,
                           String updatedBy, Instant lastSlot, List<Slot> nextSlots, List<Run> lastRuns) {
    }

    /** {@code GET /api/schedules}. */
    record Schedules(List<Schedule> schedules) {
    }

    /** A change's answer: the schedule as it is now, and warnings (a kind no live worker serves). */
    record Changed(Schedule schedule, List<String> warnings) {
    }

    /** {@code DELETE}'s answer. */
    record Deleted(String name, boolean deleted, String changedBy) {
    }

    private void list(Context ctx) {
        boolean payloads = Caller.of(ctx).role().seesPayloads();
        ctx.json(new Schedules(admin.schedules().stream().map(s -> view(s, payloads)).toList()));
    }

    private void one(Context ctx) {
        String name = ctx.pathParam("name");
        ScheduleInfo s = found(name, call(() -> admin.schedule(name)));
        ctx.json(view(s, Caller.of(ctx).role().seesPayloads()));
    }

    private void create(Context ctx) {
        ScheduleRequest body = bodies.read(ctx, ScheduleRequest.class, SHAPE);
        if (body.name() == null) {
            throw ApiException.badRequest("name is required; " + SHAPE);
        }
        ScheduleDefinition definition = definition(body.name(), body);
        String by = changedBy(ctx, body.changedBy());
        ScheduleInfo created = call(() -> admin.createSchedule(definition, by));
        ctx.status(201).json(changed(created));
    }

    private void edit(Context ctx) {
        String name = ctx.pathParam("name");
        ScheduleRequest body = bodies.read(ctx, ScheduleRequest.class, SHAPE);
        if (body.name() != null && !body.name().equals(name)) {
            throw ApiException.badRequest("the body's name must be the path's, or left out: a schedule cannot be "
                    + "renamed (create one of the new name and delete this one)");
        }
        ScheduleDefinition definition = definition(name, body);
        String by = changedBy(ctx, body.changedBy());
        ctx.json(changed(found(name, call(() -> admin.editSchedule(definition, by)))));
    }

    private void pause(Context ctx, boolean paused) {
        String name = ctx.pathParam("name");
        String by = changedBy(ctx, optionalBody(ctx).changedBy());
        Optional<ScheduleInfo> s = call(() -> paused ? admin.pauseSchedule(name, by) : admin.resumeSchedule(name, by));
        ctx.json(changed(found(name, s)));
    }

    private void delete(Context ctx) {
        String name = ctx.pathParam("name");
        String by = changedBy(ctx, optionalBody(ctx).changedBy());
        if (!call(() -> admin.deleteSchedule(name, by))) {
            throw ApiException.notFound("no schedule named " + JobRequests.clip(name));
        }
        ctx.json(new Deleted(name, true, by));
    }

    private static final String SHAPE = "the body must be {\"name\": \"...\", \"cron\": \"0 3 * * *\", \"zone\": \"UTC\", "
            + "\"kind\": \"...\", \"payload\": {...}, \"queue\": \"...\", \"priority\": 0, \"maxAttempts\": 5, "
            + "\"catchUp\": \"all\" or \"latest\", \"changedBy\": \"...\"} (cron and kind required)";

    private ScheduleDefinition definition(String name, ScheduleRequest body) {
        if (body.cron() == null || body.kind() == null) {
            throw ApiException.badRequest("cron and kind are required; " + SHAPE);
        }
        try {
            ZoneId zone = body.zone() == null ? null : ScheduleDefinition.zone(body.zone());
            if (body.payload() != null) {
                PayloadCheck.check(body.payload());
            }
            return new ScheduleDefinition(name, body.cron(), zone, body.kind(),
                    body.payload() == null || body.payload().isNull() ? null : body.payload().toString(), body.queue(),
                    body.priority(), body.maxAttempts(), catchUp(body.catchUp()));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private static ScheduleDefinition.CatchUp catchUp(String text) {
        if (text == null) {
            return null;
        }
        return switch (text) {
            case "all" -> ScheduleDefinition.CatchUp.ALL;
            case "latest" -> ScheduleDefinition.CatchUp.LATEST;
            default -> throw ApiException.badRequest("catchUp must be all or latest, was '" + JobRequests.clip(text) + "'");
        };
    }

    private ChangeRequest optionalBody(Context ctx) {
        if (ctx.body().isBlank()) {
            return new ChangeRequest(null);
        }
        return bodies.read(ctx, ChangeRequest.class, "the body, if any, must be {\"changedBy\": \"...\"}");
    }

    /** Runs a change, with the library's refusals as the API's answers: a code-declared or taken name is a 409. */
    private static <T> T call(java.util.function.Supplier<T> change) {
        try {
            return change.get();
        } catch (IllegalStateException e) {
            throw ApiException.conflict(e.getMessage());
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("payload is ") && e.getMessage().contains("over the limit")) {
                throw new ApiException(413, "payload_too_large", e.getMessage());
            }
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private static ScheduleInfo found(String name, Optional<ScheduleInfo> s) {
        return s.orElseThrow(() -> ApiException.notFound("no schedule named " + JobRequests.clip(name)));
    }

    private Changed changed(ScheduleInfo s) {
        List<String> warnings = new ArrayList<>();
        if (!s.kindServed()) {
            warnings.add("no live worker serves kind " + s.kind() + ": its jobs will wait until one does");
        }
        return new Changed(view(s, true), warnings);
    }

    /** Who changes it, as recorded: the given name (if any) with the caller's role and channel. */
    private static String changedBy(Context ctx, String name) {
        Caller caller = Caller.of(ctx);
        String channel = caller.role().label() + ", " + (caller.viaSession() ? "dashboard" : "API token");
        if (name == null || name.isEmpty()) {
            return channel;
        }
        // The library refuses anything unprintable in the whole record (DocketAdmin.MAX_CHANGED_BY).
        if (name.length() > MAX_NAME || name.isBlank()) {
            throw ApiException.badRequest("changedBy must be 1 to " + MAX_NAME + " printable characters");
        }
        return name + " (" + channel + ")";
    }

    private Schedule view(ScheduleInfo s, boolean payloads) {
        Instant now = Instant.now();
        List<Slot> next = s.paused() ? List.of() : s.nextSlots(now, SHOWN).stream().map(SchedulesApi::slot).toList();
        List<Run> runs = admin.scheduleRuns(s.name(), SHOWN).stream().map(SchedulesApi::run).toList();
        return new Schedule(s.name(), s.origin().name().toLowerCase(Locale.ROOT), s.editable(), s.cron(), s.zone().getId(),
                s.kind(), payloads ? new RawJson(s.payloadJson()) : null, payloads ? null : Boolean.TRUE, s.queue(),
                s.priority(), s.maxAttempts(), s.catchUp().name().toLowerCase(Locale.ROOT), s.paused(), s.kindServed(),
                s.version(), s.createdAt(), s.createdBy(), s.updatedAt(), s.updatedBy(), s.lastSlot(), next, runs);
    }

    private static Slot slot(ZonedDateTime t) {
        return new Slot(t.toInstant(), t.toOffsetDateTime().toString());
    }

    private static Run run(ScheduleRun r) {
        return new Run(r.slot(), r.jobId(), r.enqueuedAt(), r.state().map(ResponseViews::state).orElse("gone"));
    }
}
