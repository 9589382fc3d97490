package dev.docket.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The slot arithmetic of {@link CronEnqueuer#dueSlots}, without a database. */
class CronSlotsTest {

    private static CronEnqueuer.Schedule every(String cron, String zone) {
        CronType type = cron.split(" ").length == 6 ? CronType.SPRING53 : CronType.UNIX;
        return new CronEnqueuer.Schedule("s", cron, ExecutionTime.forCron(new CronParser(
                CronDefinitionBuilder.instanceDefinitionFor(type)).parse(cron)), ZoneId.of(zone), null);
    }

    private static Instant at(String utc) {
        return Instant.parse(utc);
    }

    @Test
    void slotsAfterTheLastUpToAndIncludingNowOldestFirst() {
        CronEnqueuer.Schedule minutely = every("* * * * *", "UTC");

        assertThat(CronEnqueuer.dueSlots(minutely, at("2026-01-01T10:00:00Z"), at("2026-01-01T10:03:00Z")))
                .containsExactly(at("2026-01-01T10:01:00Z"), at("2026-01-01T10:02:00Z"), at("2026-01-01T10:03:00Z"));
        assertThat(CronEnqueuer.dueSlots(minutely, at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:59.999Z")))
                .as("the next slot is not due yet").isEmpty();
        assertThat(CronEnqueuer.dueSlots(minutely, at("2026-01-01T10:00:30Z"), at("2026-01-01T10:01:00Z")))
                .containsExactly(at("2026-01-01T10:01:00Z"));
    }

    @Test
    void catchUpIsLimitedPerRoundAndResumesWhereItStopped() {
        CronEnqueuer.Schedule everySecond = every("* * * * * *", "UTC");
        Instant now = at("2026-01-01T10:01:00Z");

        List<Instant> first = CronEnqueuer.dueSlots(everySecond, at("2026-01-01T10:00:00Z"), now);
        List<Instant> second = CronEnqueuer.dueSlots(everySecond, first.getLast(), now);

        assertThat(first).hasSize(CronEnqueuer.MAX_CATCH_UP).startsWith(at("2026-01-01T10:00:01Z"))
                .endsWith(at("2026-01-01T10:00:10Z"));
        assertThat(second).hasSize(CronEnqueuer.MAX_CATCH_UP).startsWith(at("2026-01-01T10:00:11Z"));
        assertThat(CronEnqueuer.dueSlots(everySecond, at("2026-01-01T10:00:50Z"), now)).hasSize(10)
                .endsWith(now);
        assertThat(CronEnqueuer.dueSlots(everySecond, at("2026-01-01T10:00:51Z"), now)).hasSize(9);
    }

    /** A stored schedule whose catch-up is LATEST enqueues the newest missed slot only. */
    @Test
    void latestCatchUpTakesOnlyTheMostRecentMissedSlot() {
        CronEnqueuer.Schedule minutely = every("* * * * *", "UTC");
        ZoneId utc = ZoneId.of("UTC");

        assertThat(CronEnqueuer.latestSlot(minutely.times(), utc, at("2026-01-01T10:00:00Z"), at("2026-01-01T10:05:30Z")))
                .containsExactly(at("2026-01-01T10:05:00Z"));
        assertThat(CronEnqueuer.latestSlot(minutely.times(), utc, at("2026-01-01T10:00:00Z"), at("2026-01-01T10:05:00Z")))
                .as("a slot exactly at now is due").containsExactly(at("2026-01-01T10:05:00Z"));
        assertThat(CronEnqueuer.latestSlot(minutely.times(), utc, at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:59Z")))
                .as("nothing due yet").isEmpty();
        assertThat(CronEnqueuer.latestSlot(minutely.times(), utc, at("2026-01-01T10:00:30Z"), at("2026-01-01T10:01:10Z")))
                .containsExactly(at("2026-01-01T10:01:00Z"));
    }

    @Test
    void slotsFollowTheScheduleZone() {
        CronEnqueuer.Schedule threeInKolkata = every("0 3 * * *", "Asia/Kolkata");

        assertThat(CronEnqueuer.dueSlots(threeInKolkata, at("2026-01-01T00:00:00Z"), at("2026-01-03T00:00:00Z")))
                .containsExactly(at("2026-01-01T21:30:00Z"), at("2026-01-02T21:30:00Z"));
    }
}
