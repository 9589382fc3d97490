package dev.docket.internal.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.PeriodicJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.rules.CronRules;
import dev.docket.testing.DocketTest;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class CronEnqueuerTest extends DocketTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final InsertRow JOB = new InsertRow("default", "report", "{}", 1, 0, null, null, 5, null, null, null, "{}", null, false);

    private static CronEnqueuer.Schedule schedule(String name, String cron, ZoneId zone) {
        PeriodicJob p = new PeriodicJob(name, cron, zone, "report", null, dev.docket.JobOptions.defaults());
        return new CronEnqueuer.Schedule(name, cron, CronRules.executionTime(p.cron()), zone, JOB);
    }

    private static Instant berlin(String localDateTime) {
        return java.time.LocalDateTime.parse(localDateTime).atZone(BERLIN).toInstant();
    }

    /**
     * On the spring-forward day 02:30 does not exist, so that day has no 02:30 slot (as in Quartz);
     * the days around it keep theirs at 02:30 local time, not shifted by the offset change.
     */
    @Test
    void aSlotInTheSkippedHourDoesNotExistThatDay() {
        CronEnqueuer.Schedule daily = schedule("daily", "30 2 * * *", BERLIN);
        List<Instant> slots = CronEnqueuer.dueSlots(daily, berlin("2026-03-27T12:00"), berlin("2026-03-31T00:00"));
        assertThat(slots.stream().map(t -> t.atZone(BERLIN).toLocalDate()))
                .containsExactly(LocalDate.parse("2026-03-28"), LocalDate.parse("2026-03-30"));
        assertThat(slots).allSatisfy(t -> assertThat(t.atZone(BERLIN).toLocalTime()).hasToString("02:30"));
    }

    /** On the fall-back day 02:30 happens twice: the daily job runs once. */
    @Test
    void aSlotInTheRepeatedHourRunsOnce() {
        CronEnqueuer.Schedule daily = schedule("daily", "30 2 * * *", BERLIN);
        List<Instant> slots = CronEnqueuer.dueSlots(daily, berlin("2026-10-24T12:00"), berlin("2026-10-26T12:00"));
        assertThat(slots.stream().map(t -> t.atZone(BERLIN).toLocalDate()))
                .containsExactly(LocalDate.parse("2026-10-25"), LocalDate.parse("2026-10-26"));
    }

    /** Hourly slots follow the wall clock of the zone across a DST change: 23 slots on the short day. */
    @Test
    void hourlySlotsFollowTheZone() {
        CronEnqueuer.Schedule hourly = schedule("hourly", "0 * * * *", BERLIN);
        ZonedDateTime start = ZonedDateTime.of(2026, 3, 29, 0, 0, 0, 0, BERLIN);
        Instant end = start.plusDays(1).minusSeconds(1).toInstant();
        List<Instant> slots = new java.util.ArrayList<>();
        Instant last = start.minusSeconds(1).toInstant();
        // Catch-up hands out at most MAX_CATCH_UP slots per call: walk the day the way rounds would.
        for (List<Instant> page = CronEnqueuer.dueSlots(hourly, last, end); !page.isEmpty();
                page = CronEnqueuer.dueSlots(hourly, last, end)) {
            assertThat(page.size()).isLessThanOrEqualTo(CronEnqueuer.MAX_CATCH_UP);
            slots.addAll(page);
            last = page.getLast();
        }
        assertThat(slots).hasSize(23).doesNotHaveDuplicates().isSorted();
        assertThat(slots.stream().map(t -> t.atZone(BERLIN).getHour())).doesNotContain(2);
    }

    /** A schedule starts with its next slot, enqueues each slot once, and catches up missed ones in order. */
    @Test
    void enqueuesEachDueSlotExactlyOnce() throws Exception {
        docket();
        Database store = new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
        CronEnqueuer cron = new CronEnqueuer(store, List.of(schedule("minutely", "* * * * *", ZoneId.of("UTC"))),
                CronEnqueuer.StoredJobs.NONE);
        Instant t0 = Instant.parse("2026-11-25T10:00:30Z");
        assertThat(cron.runOnce(t0)).as("first sight only records the start").isZero();
        assertThat(cron.runOnce(t0.plusSeconds(20))).isZero();
        assertThat(cron.runOnce(t0.plusSeconds(40))).as("10:01 is due").isEqualTo(1);
        assertThat(cron.runOnce(t0.plusSeconds(45))).as("not twice").isZero();
        CronEnqueuer other = new CronEnqueuer(store, List.of(schedule("minutely", "* * * * *", ZoneId.of("UTC"))),
                CronEnqueuer.StoredJobs.NONE);
        assertThat(other.runOnce(t0.plusSeconds(50))).as("another leader does not repeat it").isZero();
        assertThat(other.runOnce(t0.plusSeconds(40 + 180))).as("10:02, 10:03, 10:04 caught up").isEqualTo(3);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'report'")).isEqualTo(4);
        assertThat(queryLong("SELECT count(DISTINCT unique_key) FROM {s}.jobs WHERE unique_key LIKE 'cron:minutely:%'"))
                .isEqualTo(4);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE run_at = timestamptz '2026-11-25T10:01:00Z'"))
                .as("a slot's job is due at the slot").isEqualTo(1);
    }
}
