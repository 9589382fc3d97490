package dev.docket;

import com.cronutils.model.time.ExecutionTime;
import dev.docket.internal.rules.CronRules;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A periodic job as {@link DocketAdmin#schedules()} shows it: stored at run time ({@link Origin#RUNTIME}),
 * or declared in code ({@link Origin#CODE}; written by the maintenance leader that declares it, read-only
 * to every tool).
 *
 * @param name        the schedule's name (the key of its slots)
 * @param origin      where it is defined
 * @param cron        its cron expression
 * @param zone        the time zone its cron is read in
 * @param kind        the kind of its jobs
 * @param payloadJson the payload of its jobs, as JSON text
 * @param queue       its jobs' queue; null for the kind's default
 * @param priority    its jobs' priority; null for the kind's default
 * @param maxAttempts its jobs' attempts; null for the kind's retry policy
 * @param catchUp     what the leader does with missed slots (always {@code ALL} for code-declared schedules)
 * @param paused      whether the leader skips it (its slots while paused are not caught up on resume)
 * @param kindServed  whether a live worker serves its kind now (on its queue, when it names one); false means
 *                    its jobs wait for one
 * @param version     grows with each change
 * @param createdAt   when it was stored (for code: first declared)
 * @param createdBy   who stored it ({@code code} for code-declared ones)
 * @param updatedAt   when it last changed
 * @param updatedBy   who changed it last
 * @param lastSlot    the slot the leader enqueued (or started from) last; null before a leader saw it
 */
public record ScheduleInfo(String name, Origin origin, String cron, ZoneId zone, String kind, String payloadJson,
                           String queue, Integer priority, Integer maxAttempts, ScheduleDefinition.CatchUp catchUp,
                           boolean paused, boolean kindServed, long version, Instant createdAt, String createdBy,
                           Instant updatedAt, String updatedBy, Instant lastSlot) {

    /** Where a schedule is defined. */
    public enum Origin {
        /** A {@link PeriodicJob} in an application's code: change it there. */
        CODE,
        /** Stored in the database by {@link DocketAdmin#createSchedule} (or the API, CLI, dashboard). */
        RUNTIME
    }

    /** Whether tools may change it: only schedules stored at run time. */
    public boolean editable() {
        return origin == Origin.RUNTIME;
    }

    /**
     * The next {@code count} slots after {@code after}, in the schedule's zone; fewer if the cron stops
     * firing. Paused schedules have slots too: they are what a resume would not skip.
     */
    public List<ZonedDateTime> nextSlots(Instant after, int count) {
        ExecutionTime times = CronRules.executionTime(cron);
        List<ZonedDateTime> slots = new ArrayList<>();
        ZonedDateTime cursor = after.atZone(zone);
        while (slots.size() < count) {
            Optional<ZonedDateTime> next = times.nextExecution(cursor);
            if (next.isEmpty()) {
                break;
            }
            slots.add(next.get());
            cursor = next.get();
        }
        return slots;
    }
}
