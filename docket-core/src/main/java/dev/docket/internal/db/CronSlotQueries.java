package dev.docket.internal.db;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The cron_slots table: the last enqueued slot of each periodic job, advanced with the slot's enqueue,
 * whether the schedule is declared in code or stored in the database.
 */
public record CronSlotQueries(Jdbc jdbc, Statements sql, JobInsertQueries jobs, QueueQueries queues,
                              ScheduleQueries schedules) {

    /** The last enqueued slot of a periodic job, or empty when it was never seen. */
    public Optional<Instant> find(String name) throws SQLException {
        return jdbc.first(sql.get("cronSlotFind"), p -> p.text(name), rs -> Jdbc.instant(rs, "last_slot"));
    }

    /** Records a periodic job seen for the first time as having enqueued up to {@code slot}. */
    public void init(String name, Instant slot) throws SQLException {
        jdbc.update(sql.get("cronSlotInit"), p -> p.text(name).timestamptz(slot));
    }

    /**
     * Enqueues {@code row} for {@code slot} if, and only if, this call moves the periodic job's last
     * slot forward to it, in one transaction that also records the run; returns whether it did.
     */
    public boolean enqueueSlot(String name, Instant slot, InsertRow row) throws SQLException {
        return enqueue(name, slot, row, null);
    }

    /**
     * As {@link #enqueueSlot}, for a schedule stored in the database: only while it is still at
     * {@code version} and not paused (a change committed since the leader read it wins).
     */
    public boolean enqueueStoredSlot(String name, long version, Instant slot, InsertRow row) throws SQLException {
        return enqueue(name, slot, row, version);
    }

    private boolean enqueue(String name, Instant slot, InsertRow row, Long version) throws SQLException {
        return jdbc.transaction(c -> {
            int advanced = version == null
                    ? Jdbc.update(c, sql.get("cronSlotAdvance"), p -> p.timestamptz(slot).text(name).timestamptz(slot))
                    : Jdbc.update(c, sql.get("cronSlotAdvanceStored"),
                            p -> p.timestamptz(slot).text(name).timestamptz(slot).int8(version));
            if (advanced == 0) {
                return false;
            }
            Inserted inserted = jobs.insertMany(c, List.of(row)).getFirst();
            if (inserted.ready()) {
                queues.notify(c, List.of(row.queue()));
            }
            schedules.recordRun(c, name, slot, inserted.id());
            return true;
        });
    }
}
