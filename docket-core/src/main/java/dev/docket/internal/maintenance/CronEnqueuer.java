package dev.docket.internal.maintenance;

import com.cronutils.model.time.ExecutionTime;
import dev.docket.ScheduleDefinition;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.ScheduleQueries;
import dev.docket.internal.rules.CronRules;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues the due slots of periodic jobs (leader only, as part of maintenance): those declared in code
 * and those stored in the database at run time, through one mechanism. Each slot is enqueued in the
 * transaction that advances the schedule's last slot, so it happens exactly once whichever node is
 * leader; a new leader catches up missed slots, at most {@link #MAX_CATCH_UP} per schedule and round
 * (a stored schedule may ask for only the latest). Slots are computed by the database clock in each
 * schedule's zone. Stored schedules are read once per round: an edit applies from the next round.
 */
public final class CronEnqueuer {

    private static final Logger log = LoggerFactory.getLogger(CronEnqueuer.class);
    static final int MAX_CATCH_UP = 10;

    /**
     * One schedule declared in code: its name, when it fires, the job each slot enqueues (run_at and unique key
     * set per slot), and what each slot does to the payload (an encrypted kind's is sealed anew per slot).
     */
    public record Schedule(String name, String cron, ExecutionTime times, ZoneId zone, InsertRow job,
            UnaryOperator<String> payload) {

        /** A schedule whose payload is stored as the row holds it. */
        public Schedule(String name, String cron, ExecutionTime times, ZoneId zone, InsertRow job) {
            this(name, cron, times, zone, job, UnaryOperator.identity());
        }
    }

    /** Builds the job a stored schedule enqueues, with its kind's defaults as this node knows them. */
    public interface StoredJobs {
        /** For a maintainer without kinds (tests of other steps): stored schedules are skipped, with a warning. */
        StoredJobs NONE = s -> {
            throw new IllegalStateException("this maintainer enqueues no stored schedules");
        };

        InsertRow row(ScheduleQueries.Stored schedule);
    }

    private final Database store;
    private final List<Schedule> schedules;
    private final Set<String> declaredNames;
    private final StoredJobs storedJobs;
    /** Stored schedules already warned about, so a bad one is logged once, not every round. */
    private final Set<String> warned = new HashSet<>();
    private boolean declared;

    public CronEnqueuer(Database store, List<Schedule> schedules, StoredJobs storedJobs) {
        this.store = store;
        this.schedules = List.copyOf(schedules);
        this.declaredNames = this.schedules.stream().map(Schedule::name).collect(Collectors.toUnmodifiableSet());
        this.storedJobs = storedJobs;
    }

    /** Enqueues every due slot by the database clock; returns how many jobs it enqueued. */
    public int runOnce() throws SQLException {
        return runOnce(store.schema().now());
    }

    /** Enqueues every slot due at {@code now}; tests pass the time instead of waiting for it. */
    public int runOnce(Instant now) throws SQLException {
        if (!declared) {
            // Once per node: what its code declares, so that every tool shows it beside the stored ones.
            store.schedules().declare(schedules.stream().map(CronEnqueuer::declaration).toList());
            declared = true;
        }
        int enqueued = 0;
        for (Schedule s : schedules) {
            Optional<Instant> last = store.cronSlots().find(s.name());
            if (last.isEmpty()) {
                // First sight: start with the next slot rather than firing for one that already passed.
                store.cronSlots().init(s.name(), now);
                continue;
            }
            for (Instant slot : dueSlots(s.times(), s.zone(), s.name(), last.get(), now)) {
                if (store.cronSlots().enqueueSlot(s.name(), slot, forSlot(s.name(), s.job(), s.payload(), slot))) {
                    enqueued++;
                }
            }
        }
        for (ScheduleQueries.Stored s : store.schedules().listRuntime()) {
            enqueued += runStored(s, now);
        }
        return enqueued;
    }

    private int runStored(ScheduleQueries.Stored s, Instant now) throws SQLException {
        if (declaredNames.contains(s.name())) {
            warnOnce(s, "docket: schedule {} is stored in the database and declared in this node's code; "
                    + "the code's declaration runs, the stored one is skipped until one of them is renamed");
            return 0;
        }
        ExecutionTime times;
        ZoneId zone;
        InsertRow job;
        try {
            times = CronRules.executionTime(s.cron());
            zone = ZoneId.of(s.zone());
            job = storedJobs.row(s);
        } catch (RuntimeException e) {
            // Checked when it was saved; this node may still refuse it (a smaller payload limit, an older zone database).
            warnOnce(s, "docket: schedule {} cannot be enqueued on this node and is skipped: " + e.getMessage());
            return 0;
        }
        Optional<Instant> last = store.cronSlots().find(s.name());
        if (last.isEmpty()) {
            store.cronSlots().init(s.name(), now);
            return 0;
        }
        List<Instant> due = s.catchUp() == ScheduleDefinition.CatchUp.LATEST
                ? latestSlot(times, zone, last.get(), now)
                : dueSlots(times, zone, s.name(), last.get(), now);
        int enqueued = 0;
        for (Instant slot : due) {
            if (store.cronSlots().enqueueStoredSlot(s.name(), s.version(), slot, forSlot(s.name(), job, UnaryOperator.identity(), slot))) {
                enqueued++;
            }
        }
        return enqueued;
    }

    private void warnOnce(ScheduleQueries.Stored s, String message) {
        if (warned.add(s.name() + "@" + s.version())) {
            log.warn(message, s.name());
        }
    }

    /** The slots of {@code s} after {@code last} up to {@code now}, oldest first, at most {@link #MAX_CATCH_UP}. */
    static List<Instant> dueSlots(Schedule s, Instant last, Instant now) {
        return dueSlots(s.times(), s.zone(), s.name(), last, now);
    }

    /** The slots after {@code last} up to {@code now}, oldest first, at most {@link #MAX_CATCH_UP}. */
    static List<Instant> dueSlots(ExecutionTime times, ZoneId zone, String name, Instant last, Instant now) {
        List<Instant> due = new ArrayList<>();
        ZonedDateTime cursor = last.atZone(zone);
        while (due.size() < MAX_CATCH_UP) {
            Optional<ZonedDateTime> next = times.nextExecution(cursor);
            if (next.isEmpty() || next.get().toInstant().isAfter(now)) {
                break;
            }
            due.add(next.get().toInstant());
            cursor = next.get();
        }
        if (due.size() == MAX_CATCH_UP) {
            log.warn("docket: periodic job {} is catching up on missed slots, {} at a time", name, MAX_CATCH_UP);
        }
        return due;
    }

    /** The most recent slot after {@code last} up to {@code now}, if any: the older missed ones are skipped. */
    static List<Instant> latestSlot(ExecutionTime times, ZoneId zone, Instant last, Instant now) {
        Optional<ZonedDateTime> first = times.nextExecution(last.atZone(zone));
        if (first.isEmpty() || first.get().toInstant().isAfter(now)) {
            return List.of();
        }
        ZonedDateTime latest = times.lastExecution(now.atZone(zone)).orElse(first.get());
        Optional<ZonedDateTime> atNow = times.nextExecution(latest);
        if (atNow.isPresent() && !atNow.get().toInstant().isAfter(now)) {
            latest = atNow.get();
        }
        return latest.toInstant().isAfter(last) ? List.of(latest.toInstant()) : List.of(first.get().toInstant());
    }

    private static InsertRow forSlot(String name, InsertRow j, UnaryOperator<String> payload, Instant slot) {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, slot);
        return new InsertRow(j.queue(), j.kind(), payload.apply(j.payloadJson()), j.payloadVersion(), j.priority(), micros,
                null, j.maxAttempts(), j.tenant(), "cron:" + name + ":" + slot.getEpochSecond(), null, j.metadataJson(),
                j.sequenceKey(), j.haltSequence(), new long[0], null, j.waits());
    }

    private static ScheduleQueries.Declared declaration(Schedule s) {
        InsertRow j = s.job();
        return new ScheduleQueries.Declared(s.name(), s.cron().trim(), s.zone().getId(), j.kind(), j.payloadJson(),
                j.queue(), (short) j.priority(), j.maxAttempts());
    }
}
