package dev.docket;

import dev.docket.internal.rules.ScheduleRules;
import java.time.ZoneId;
import java.util.Objects;

/**
 * A periodic job stored in the database and changed at run time ({@link DocketAdmin#createSchedule},
 * {@link DocketAdmin#editSchedule}), as opposed to a {@link PeriodicJob} declared in code. The maintenance
 * leader enqueues its slots exactly as it does a {@code PeriodicJob}'s: one job per slot across the
 * cluster, whichever node leads, with the same cron reading and daylight-saving rules.
 *
 * <p>Start from {@link #of(String, String, String)} and change what differs from the defaults with the
 * {@code with...} methods. Unset options (null) take the kind's defaults when each job is enqueued, as an
 * {@code enqueue} with {@link JobOptions#defaults()} does.
 *
 * @param name        1 to 128 of {@code A-Z a-z 0-9 _ . : -}, unique among stored and code-declared schedules
 * @param cron        five fields (as in crontab) or six with seconds first (as in Spring), at most
 *                    {@value ScheduleRules#MAX_CRON_LENGTH} characters; it must fire at least once
 * @param zone        the time zone the cron fields are read in; default UTC
 * @param kind        the kind of the enqueued jobs; a kind no live worker serves is accepted (its jobs wait for
 *                    a worker, as any enqueue's would) and {@link ScheduleInfo#kindServed()} says so
 * @param payloadJson the payload of every job, JSON text within the Docket's {@code maxPayloadBytes}; default {@code {}}
 * @param queue       the jobs' queue, or null for the kind's default ({@code default})
 * @param priority    the jobs' priority (-32768 to 32767), or null for the kind's default
 * @param maxAttempts the jobs' attempts (at least 1), or null for the kind's retry policy
 * @param catchUp     what the leader does with slots it missed (leader down, schedule behind); default {@link CatchUp#ALL}
 */
public record ScheduleDefinition(String name, String cron, ZoneId zone, String kind, String payloadJson, String queue,
                                 Integer priority, Integer maxAttempts, CatchUp catchUp) {

    /** What the leader does with slots that passed while no leader could enqueue them. */
    public enum CatchUp {
        /** Enqueue every missed slot, oldest first, at most 10 per round (as a {@link PeriodicJob} does). */
        ALL,
        /** Enqueue only the most recent missed slot: a backlog of missed slots becomes one job. */
        LATEST
    }

    public ScheduleDefinition {
        ScheduleRules.checkName(name);
        ScheduleRules.checkCron(cron);
        zone = zone == null ? ZoneId.of("UTC") : zone;
        ScheduleRules.checkKind(kind);
        payloadJson = payloadJson == null ? "{}" : payloadJson;
        if (queue != null) {
            ScheduleRules.checkQueue(queue);
        }
        if (priority != null && (priority < Short.MIN_VALUE || priority > Short.MAX_VALUE)) {
            throw new IllegalArgumentException("priority must be between -32768 and 32767, was " + priority);
        }
        if (maxAttempts != null && maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, was " + maxAttempts);
        }
        catchUp = catchUp == null ? CatchUp.ALL : catchUp;
    }

    /**
     * A time zone from text, as tools take it: an IANA name ({@code Europe/Berlin}), {@code UTC}, or an offset
     * ({@code +02:00}).
     *
     * @throws IllegalArgumentException naming the text (clipped, unprintable characters shown as {@code ?}) if it is none
     */
    public static ZoneId zone(String text) {
        return ScheduleRules.zone(text);
    }

    /** A schedule in UTC with payload {@code {}}, the kind's default options and {@link CatchUp#ALL}. */
    public static ScheduleDefinition of(String name, String cron, String kind) {
        return new ScheduleDefinition(name, cron, null, kind, null, null, null, null, null);
    }

    /** The same schedule with another cron expression (checked as {@code cron} above). */
    public ScheduleDefinition withCron(String cron) {
        return new ScheduleDefinition(name, cron, zone, kind, payloadJson, queue, priority, maxAttempts, catchUp);
    }

    /** The same schedule read in another time zone. */
    public ScheduleDefinition withZone(ZoneId zone) {
        return new ScheduleDefinition(name, cron, Objects.requireNonNull(zone, "zone"), kind, payloadJson, queue,
                priority, maxAttempts, catchUp);
    }

    /** The same schedule enqueueing jobs of another kind. */
    public ScheduleDefinition withKind(String kind) {
        return new ScheduleDefinition(name, cron, zone, kind, payloadJson, queue, priority, maxAttempts, catchUp);
    }

    /** The payload as JSON text; checked (syntax, size) when the schedule is saved. */
    public ScheduleDefinition withPayloadJson(String payloadJson) {
        return new ScheduleDefinition(name, cron, zone, kind, payloadJson, queue, priority, maxAttempts, catchUp);
    }

    /** The same schedule enqueueing into another queue; null for the kind's default. */
    public ScheduleDefinition withQueue(String queue) {
        return new ScheduleDefinition(name, cron, zone, kind, payloadJson, queue, priority, maxAttempts, catchUp);
    }

    /** The same schedule with another priority for its jobs; null for the kind's default. */
    public ScheduleDefinition withPriority(Integer priority) {
        return new ScheduleDefinition(name, cron, zone, kind, payloadJson, queue, priority, maxAttempts, catchUp);
    }

    /** The same schedule with another number of attempts for its jobs; null for the kind's retry policy. */
    public ScheduleDefinition withMaxAttempts(Integer maxAttempts) {
        return new ScheduleDefinition(name, cron, zone, kind, payloadJson, queue, priority, maxAttempts, catchUp);
    }

    /** The same schedule with another catch-up policy; null for {@link CatchUp#ALL}. */
    public ScheduleDefinition withCatchUp(CatchUp catchUp) {
        return new ScheduleDefinition(name, cron, zone, kind, payloadJson, queue, priority, maxAttempts, catchUp);
    }
}
