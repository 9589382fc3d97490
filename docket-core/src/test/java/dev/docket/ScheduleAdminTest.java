package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.rules.ScheduleRules;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Periodic jobs stored at run time: their changes through {@link DocketAdmin}, and the leader's slots. */
class ScheduleAdminTest extends DocketTest {

    private static final ScheduleDefinition NIGHTLY = ScheduleDefinition.of("nightly-report", "0 3 * * *", "report")
            .withZone(ZoneId.of("Europe/Berlin")).withPayloadJson("{\"format\":\"pdf\"}").withQueue("reports")
            .withPriority(5).withMaxAttempts(3);

    @Test
    void createEditPauseResumeAndDeleteRecordWhoAndWhen() {
        DocketAdmin admin = docket().admin();
        ScheduleInfo created = admin.createSchedule(NIGHTLY, "ada (cli)");

        assertThat(created.origin()).isEqualTo(ScheduleInfo.Origin.RUNTIME);
        assertThat(created.editable()).isTrue();
        assertThat(created.cron()).isEqualTo("0 3 * * *");
        assertThat(created.zone()).isEqualTo(ZoneId.of("Europe/Berlin"));
        assertThat(created.payloadJson()).isEqualTo("{\"format\": \"pdf\"}");
        assertThat(created.queue()).isEqualTo("reports");
        assertThat(created.priority()).isEqualTo(5);
        assertThat(created.maxAttempts()).isEqualTo(3);
        assertThat(created.catchUp()).isEqualTo(ScheduleDefinition.CatchUp.ALL);
        assertThat(created.createdBy()).isEqualTo("ada (cli)");
        assertThat(created.updatedBy()).isEqualTo("ada (cli)");
        assertThat(created.lastSlot()).as("its slots start now").isNotNull();
        assertThat(created.kindServed()).as("no worker serves report").isFalse();
        assertThat(created.nextSlots(Instant.parse("2026-03-28T12:00:00Z"), 2)).extracting(Object::toString)
                .containsExactly("2026-03-29T03:00+02:00[Europe/Berlin]", "2026-03-30T03:00+02:00[Europe/Berlin]");

        ScheduleInfo edited = admin.editSchedule(NIGHTLY.withCron("30 4 * * *").withCatchUp(
                ScheduleDefinition.CatchUp.LATEST).withPayloadJson("{\"format\":\"csv\"}"), "grace (operator, dashboard)")
                .orElseThrow();
        assertThat(edited.cron()).isEqualTo("30 4 * * *");
        assertThat(edited.catchUp()).isEqualTo(ScheduleDefinition.CatchUp.LATEST);
        assertThat(edited.payloadJson()).contains("csv");
        assertThat(edited.createdBy()).isEqualTo("ada (cli)");
        assertThat(edited.updatedBy()).isEqualTo("grace (operator, dashboard)");
        assertThat(edited.version()).isGreaterThan(created.version());
        assertThat(edited.updatedAt()).isAfterOrEqualTo(created.updatedAt());

        assertThat(admin.pauseSchedule("nightly-report", "linus").orElseThrow().paused()).isTrue();
        assertThat(admin.schedule("nightly-report").orElseThrow().updatedBy()).isEqualTo("linus");
        assertThat(admin.resumeSchedule("nightly-report", "ada").orElseThrow().paused()).isFalse();
        assertThat(admin.schedules()).extracting(ScheduleInfo::name).containsExactly("nightly-report");

        assertThat(admin.deleteSchedule("nightly-report", "ada")).isTrue();
        assertThat(admin.schedules()).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM {s}.cron_slots")).as("its slot goes with it").isZero();

        assertThat(admin.editSchedule(NIGHTLY, "ada")).as("unknown").isEmpty();
        assertThat(admin.pauseSchedule("nope", "ada")).isEmpty();
        assertThat(admin.resumeSchedule("nope", "ada")).isEmpty();
        assertThat(admin.deleteSchedule("nope", "ada")).isFalse();
    }

    @Test
    void badInputIsRefusedClearlyAndWritesNothing() {
        DocketAdmin admin = docket(b -> b.maxPayloadBytes(64)).admin();
        admin.createSchedule(NIGHTLY, "ada");

        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleDefinition.of("x", "not a cron", "k"))
                .withMessageContaining("cron");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleDefinition.of("x", "61 * * * *", "k"))
                .withMessageContaining("invalid cron");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleDefinition.of("x", "0 0 31 2 *", "k"))
                .withMessageContaining("never fires");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleDefinition.of("x", "* * * * *\u0000", "k"))
                .withMessageContaining("printable");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleDefinition.of("x", "* ".repeat(200), "k"))
                .withMessageContaining("at most 200");
        for (String hostile : List.of("", "a b", "x'; DROP TABLE jobs; --", "é", "\u202Eevil", "../etc", "n".repeat(129))) {
            assertThatIllegalArgumentException().as(hostile)
                    .isThrownBy(() -> ScheduleDefinition.of(hostile, "* * * * *", "k"))
                    .withMessageContaining("schedule name must be");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleDefinition.of("x", "* * * * *", "bad\u0001kind"))
                .withMessageContaining("kind");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleRules.zone("Mars/Olympus_Mons"))
                .withMessageContaining("unknown time zone 'Mars/Olympus_Mons'");
        assertThatIllegalArgumentException().isThrownBy(() -> ScheduleRules.zone("UTC\n")).withMessageContaining("time zone");
        assertThatIllegalArgumentException().isThrownBy(() -> NIGHTLY.withPriority(40_000)).withMessageContaining("priority");
        assertThatIllegalArgumentException().isThrownBy(() -> NIGHTLY.withMaxAttempts(0)).withMessageContaining("maxAttempts");
        assertThatIllegalArgumentException().isThrownBy(() -> NIGHTLY.withQueue("no spaces please"))
                .withMessageContaining("queue");

        ScheduleDefinition other = ScheduleDefinition.of("other", "* * * * *", "report");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> admin.createSchedule(other.withPayloadJson("{\"a\":\"" + "x".repeat(100) + "\"}"), "ada"))
                .withMessageContaining("over the limit");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.createSchedule(other.withPayloadJson("{\"a\":1,\"a\":2}"), "ada"))
                .withMessageContaining("twice");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.createSchedule(other.withPayloadJson("{nope"), "ada"))
                .withMessageContaining("not valid JSON");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.createSchedule(other, "")).withMessageContaining("changedBy");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.createSchedule(other, "ada\u0007"))
                .withMessageContaining("changedBy");
        assertThatIllegalArgumentException().isThrownBy(() -> admin.editSchedule(NIGHTLY.withPayloadJson("[" + "1,".repeat(40) + "1]"), "ada"))
                .withMessageContaining("over the limit");
        assertThatIllegalStateException().isThrownBy(() -> admin.createSchedule(NIGHTLY.withCron("* * * * *"), "eve"))
                .withMessageContaining("already exists");

        assertThat(admin.schedules()).extracting(ScheduleInfo::name).containsExactly("nightly-report");
        ScheduleInfo kept = admin.schedule("nightly-report").orElseThrow();
        assertThat(kept.cron()).as("the refused changes wrote nothing").isEqualTo("0 3 * * *");
        assertThat(kept.version()).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.cron_slots")).isEqualTo(1);
    }

    /** A code-declared schedule is listed beside the stored ones after the leader's first round, and is read-only. */
    @Test
    @Timeout(60)
    void codeDeclaredSchedulesAreShownAndRefuseRunTimeChanges() {
        Docket docket = docket(b -> b.periodic(PeriodicJob.of("tick", "*/10 * * * * *", "tick", null)));
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(100))
                .handler("tick", Object.class, (t, ctx) -> { }));
        DocketAdmin admin = docket.admin();
        admin.createSchedule(ScheduleDefinition.of("stored", "0 * * * *", "report"), "ada");

        await().atMost(Duration.ofSeconds(20)).until(() -> admin.schedule("tick").isPresent());
        ScheduleInfo code = admin.schedule("tick").orElseThrow();
        assertThat(code.origin()).isEqualTo(ScheduleInfo.Origin.CODE);
        assertThat(code.editable()).isFalse();
        assertThat(code.cron()).isEqualTo("*/10 * * * * *");
        assertThat(code.kindServed()).isTrue();
        assertThat(admin.schedules()).extracting(ScheduleInfo::name, ScheduleInfo::origin).containsExactly(
                org.assertj.core.groups.Tuple.tuple("stored", ScheduleInfo.Origin.RUNTIME),
                org.assertj.core.groups.Tuple.tuple("tick", ScheduleInfo.Origin.CODE));

        ScheduleDefinition asTick = ScheduleDefinition.of("tick", "* * * * *", "tick");
        assertThatIllegalStateException().isThrownBy(() -> admin.editSchedule(asTick, "eve"))
                .withMessageContaining("declared in code").withMessageContaining("change it in the code");
        assertThatIllegalStateException().isThrownBy(() -> admin.pauseSchedule("tick", "eve"))
                .withMessageContaining("declared in code");
        assertThatIllegalStateException().isThrownBy(() -> admin.resumeSchedule("tick", "eve"))
                .withMessageContaining("declared in code");
        assertThatIllegalStateException().isThrownBy(() -> admin.deleteSchedule("tick", "eve"))
                .withMessageContaining("declared in code");
        assertThatIllegalStateException().isThrownBy(() -> admin.createSchedule(asTick, "eve"))
                .withMessageContaining("already exists (declared in code)");
        assertThat(admin.schedule("tick").orElseThrow().cron()).isEqualTo("*/10 * * * * *");
    }

    /**
     * The leader's round enqueues a stored schedule's due slots through the code-declared mechanism: once
     * per slot however many leaders run the round, with the options and payload stored, and changes apply
     * from the next round (a pause stops it, a resume starts at the next slot, an edit changes the payload).
     */
    @Test
    void theLeaderEnqueuesStoredSchedulesOncePerSlot() {
        Docket docket = docket();
        DocketAdmin admin = docket.admin();
        admin.createSchedule(ScheduleDefinition.of("minutely", "* * * * *", "report").withQueue("reports")
                .withPriority(7).withMaxAttempts(2).withPayloadJson("{\"n\":1}"), "ada");
        Instant start = admin.schedule("minutely").orElseThrow().lastSlot();
        CronEnqueuer leader = new CronEnqueuer(docket.wiring().store(), List.of(), docket.wiring()::storedScheduleRow);
        CronEnqueuer next = new CronEnqueuer(docket.wiring().store(), List.of(), docket.wiring()::storedScheduleRow);

        assertThat(run(leader, start)).as("no slot before its creation").isZero();
        Instant firstSlot = start.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(60);
        assertThat(run(leader, firstSlot)).isEqualTo(1);
        assertThat(run(next, firstSlot.plusSeconds(5))).as("another leader does not repeat it").isZero();
        assertThat(run(next, firstSlot.plusSeconds(180))).as("three missed slots caught up").isEqualTo(3);
        assertThat(queryLong("SELECT count(DISTINCT unique_key) FROM {s}.jobs WHERE kind = 'report'")).isEqualTo(4);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE queue = 'reports' AND priority = 7 AND max_attempts = 2 "
                + "AND payload = '{\"n\":1}'")).isEqualTo(4);

        List<ScheduleRun> runs = admin.scheduleRuns("minutely", 20);
        assertThat(runs).hasSize(4);
        assertThat(runs.getFirst().slot()).isEqualTo(firstSlot.plusSeconds(180));
        assertThat(runs).allSatisfy(r -> assertThat(r.state()).contains(JobState.SCHEDULED));
        assertThat(docket.job(runs.getFirst().jobId()).orElseThrow().kind()).isEqualTo("report");

        admin.pauseSchedule("minutely", "ada");
        assertThat(run(leader, firstSlot.plusSeconds(600))).as("paused").isZero();
        admin.resumeSchedule("minutely", "ada");
        Instant resumedAt = admin.schedule("minutely").orElseThrow().lastSlot();
        assertThat(resumedAt).isAfter(firstSlot.plusSeconds(180).minusSeconds(1));
        admin.editSchedule(ScheduleDefinition.of("minutely", "* * * * *", "report").withPayloadJson("{\"n\":2}")
                .withCatchUp(ScheduleDefinition.CatchUp.LATEST), "ada");
        Instant later = resumedAt.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(60 * 5);
        assertThat(run(leader, later)).as("LATEST: five missed slots become one job").isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE payload = '{\"n\":2}' AND run_at = ?",
                later.atOffset(java.time.ZoneOffset.UTC))).isEqualTo(1);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'report'")).isEqualTo(5);
    }

    /** A slot read under one version of a schedule is not enqueued once the schedule changed or went. */
    @Test
    void aChangeCommittedBeforeTheSlotWins() throws Exception {
        Docket docket = docket();
        DocketAdmin admin = docket.admin();
        ScheduleInfo s = admin.createSchedule(ScheduleDefinition.of("minutely", "* * * * *", "report"), "ada");
        var row = docket.wiring().storedScheduleRow(docket.wiring().store().schedules().listRuntime().getFirst());
        Instant slot = s.lastSlot().plusSeconds(60);
        admin.pauseSchedule("minutely", "ada");

        assertThat(docket.wiring().store().cronSlots().enqueueStoredSlot("minutely", s.version(), slot, row)).isFalse();
        admin.resumeSchedule("minutely", "ada");
        assertThat(docket.wiring().store().cronSlots().enqueueStoredSlot("minutely", s.version(), slot, row))
                .as("an older version").isFalse();
        long current = admin.schedule("minutely").orElseThrow().version();
        assertThat(docket.wiring().store().cronSlots().enqueueStoredSlot("minutely", current, slot, row)).isTrue();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
    }

    /**
     * Three nodes run a stored schedule firing every second; the leader is killed (its pool closed, so it
     * resigns nothing) twice. Every slot from the first to the last is enqueued exactly once.
     */
    @Test
    @Timeout(90)
    void aStoredScheduleFiresOncePerSlotAcrossTwoLeaderKills() throws Exception {
        docket().admin().createSchedule(ScheduleDefinition.of("every-second", "* * * * * *", "tick"), "ada");
        List<com.zaxxer.hikari.HikariDataSource> pools = List.of(db.pool(6), db.pool(6), db.pool(6));
        List<Worker> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < pools.size(); i++) {
            closeAfter(pools.get(i));
            Docket d = closeAfter(Docket.builder(pools.get(i)).schema(schema).build());
            nodes.add(closeAfter(d.worker().workerId("node-" + i).queue("default", 2)
                    .leaderLease(Duration.ofMillis(600)).maintenanceInterval(Duration.ofMillis(100))
                    .handler("tick", Object.class, (t, ctx) -> { }).start()));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> slots().size() >= 3);
        for (int kill = 0; kill < 2; kill++) {
            Worker leader = await().atMost(Duration.ofSeconds(10))
                    .until(() -> nodes.stream().filter(n -> n != null && n.isLeader()).findFirst(), java.util.Optional::isPresent)
                    .orElseThrow();
            int before = slots().size();
            pools.get(nodes.indexOf(leader)).close();
            nodes.set(nodes.indexOf(leader), null);
            await().atMost(Duration.ofSeconds(20)).until(() -> nodes.stream()
                    .anyMatch(n -> n != null && n.isLeader()) && slots().size() >= before + 3);
        }

        List<Long> slots = slots();
        assertThat(slots).doesNotHaveDuplicates();
        for (int i = 1; i < slots.size(); i++) {
            assertThat(slots.get(i) - slots.get(i - 1)).as("no missed slot between %s and %s", slots.get(i - 1),
                    slots.get(i)).isEqualTo(1);
        }
    }

    private static int run(CronEnqueuer cron, Instant now) {
        try {
            return cron.runOnce(now);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The epoch seconds of the slots enqueued so far, in order (from the jobs' unique keys). */
    private List<Long> slots() {
        List<Long> slots = new java.util.ArrayList<>();
        try (var c = dataSource().getConnection(); var st = c.createStatement();
             var rs = st.executeQuery(("SELECT split_part(unique_key, ':', 3)::bigint AS s FROM {s}.job_history "
                     + "WHERE unique_key LIKE 'cron:every-second:%' UNION ALL SELECT split_part(unique_key, ':', 3)::bigint "
                     + "FROM {s}.jobs WHERE unique_key LIKE 'cron:every-second:%' ORDER BY s").replace("{s}", schema))) {
            while (rs.next()) {
                slots.add(rs.getLong(1));
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        return slots;
    }
}
