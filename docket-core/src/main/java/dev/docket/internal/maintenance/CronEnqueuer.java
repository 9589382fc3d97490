package dev.docket.internal.maintenance;

import com.cronutils.model.time.ExecutionTime;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.InsertRow;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues the due slots of periodic jobs (leader only, as part of maintenance). Each slot is
 * enqueued in the transaction that advances the schedule's last slot, so it happens exactly once
 * whichever node is leader; a new leader catches up missed slots, at most {@link #MAX_CATCH_UP}
 * per schedule and round. Slots are computed by the database clock in each schedule's zone.
 */
public final class CronEnqueuer {

    private static final Logger log = LoggerFactory.getLogger(CronEnqueuer.class);
    static final int MAX_CATCH_UP = 10;

    /** One schedule: its name, when it fires, and the job each slot enqueues (run_at and unique key set per slot). */
    public record Schedule(String name, ExecutionTime times, ZoneId zone, InsertRow job, UnaryOperator<String> payload) {

        /** A schedule whose payload is stored as the row holds it. */
        public Schedule(String name, ExecutionTime times, ZoneId zone, InsertRow job) {
            this(name, times, zone, job, UnaryOperator.identity());
        }
    }

    private final Database store;
    private final List<Schedule> schedules;

    public CronEnqueuer(Database store, List<Schedule> schedules) {
        this.store = store;
        this.schedules = List.copyOf(schedules);
    }

    public boolean isEmpty() {
        return schedules.isEmpty();
    }

    /** Enqueues every due slot by the database clock; returns how many jobs it enqueued. */
    public int runOnce() throws SQLException {
        return schedules.isEmpty() ? 0 : runOnce(store.schema().now());
    }

    /** Enqueues every slot due at {@code now}; tests pass the time instead of waiting for it. */
    public int runOnce(Instant now) throws SQLException {
        int enqueued = 0;
        for (Schedule s : schedules) {
            Optional<Instant> last = store.cronSlots().find(s.name());
            if (last.isEmpty()) {
                // First sight: start with the next slot rather than firing for one that already passed.
                store.cronSlots().init(s.name(), now);
                continue;
            }
            for (Instant slot : dueSlots(s, last.get(), now)) {
                if (store.cronSlots().enqueueSlot(s.name(), slot, forSlot(s, slot))) {
                    enqueued++;
                }
            }
        }
        return enqueued;
    }

    /** The slots after {@code last} up to {@code now}, oldest first, at most {@link #MAX_CATCH_UP}. */
    static List<Instant> dueSlots(Schedule s, Instant last, Instant now) {
        List<Instant> due = new ArrayList<>();
        ZonedDateTime cursor = last.atZone(s.zone());
        while (due.size() < MAX_CATCH_UP) {
            Optional<ZonedDateTime> next = s.times().nextExecution(cursor);
            if (next.isEmpty() || next.get().toInstant().isAfter(now)) {
                break;
            }
            due.add(next.get().toInstant());
            cursor = next.get();
        }
        if (due.size() == MAX_CATCH_UP) {
            log.warn("docket: periodic job {} is catching up on missed slots, {} at a time", s.name(), MAX_CATCH_UP);
        }
        return due;
    }

    private static InsertRow forSlot(Schedule s, Instant slot) {
        InsertRow j = s.job();
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, slot);
        return new InsertRow(j.queue(), j.kind(), s.payload().apply(j.payloadJson()), j.payloadVersion(), j.priority(), micros, null,
                j.maxAttempts(), j.tenant(), "cron:" + s.name() + ":" + slot.getEpochSecond(), null, j.metadataJson(),
                j.sequenceKey(), j.haltSequence(), new long[0], null, j.waits());
    }
}
