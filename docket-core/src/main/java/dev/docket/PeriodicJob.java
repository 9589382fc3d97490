package dev.docket;

import dev.docket.internal.rules.CronRules;
import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.rules.TextRules;
import java.time.ZoneId;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A job enqueued on a cron schedule, exactly once per slot across the cluster: the maintenance
 * leader enqueues each due slot in the same transaction that records it, so neither a second node
 * nor a leader failover enqueues a slot twice, and a new leader catches up the slots its predecessor
 * missed (up to 10 per round). A schedule seen for the first time starts with its next slot.
 * Slots are computed in {@code zone} with cron-utils and follow its wall clock across daylight-saving
 * changes: a slot in the hour that is skipped does not exist that day (as in Quartz), and one in the
 * hour that repeats runs once. Schedule daily jobs outside 02:00-03:00 local time to avoid both.
 *
 * <p>Register with {@link Docket.Builder#periodic(PeriodicJob)}.
 *
 * @param name    a unique name for the schedule (1 to 128 of {@code A-Z a-z 0-9 _ . : -})
 * @param cron    five fields (minute hour day-of-month month day-of-week, as in crontab) or six with
 *                seconds first (as in Spring), e.g. {@code "0 3 * * *"} or {@code "*\/10 * * * * *"}
 * @param zone    the time zone the cron fields are read in
 * @param kind    the kind of the enqueued jobs
 * @param payload the payload of every enqueued job
 * @param options their options (queue, priority...); the unique key is set per slot
 */
public record PeriodicJob(String name, String cron, ZoneId zone, String kind, Object payload, JobOptions options) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

    public PeriodicJob {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("periodic job name must be 1 to 128 characters of A-Z a-z 0-9 _ . : -, was "
                    + TextRules.describe(name));
        }
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(options, "options");
        JobOptionRules.checkKind(kind);
        CronRules.executionTime(cron);
    }

    /** A schedule in UTC with default options. */
    public static PeriodicJob of(String name, String cron, String kind, Object payload) {
        return new PeriodicJob(name, cron, ZoneId.of("UTC"), kind, payload, JobOptions.defaults());
    }

    /** A schedule in UTC of a {@link JobKind}, type-checked, with the kind's defaults. */
    public static <T> PeriodicJob of(String name, String cron, JobKind<T> kind, T payload) {
        Objects.requireNonNull(kind, "kind");
        return new PeriodicJob(name, cron, ZoneId.of("UTC"), kind.name(), payload, kind.resolve(JobOptions.defaults()));
    }
}
