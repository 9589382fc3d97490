package dev.docket.internal.db;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The cron_slots table: the last enqueued slot of each periodic job, advanced with the slot's enqueue. */
public record CronSlotQueries(Jdbc jdbc, Statements sql, JobInsertQueries jobs, QueueQueries queues) {

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
     * slot forward to it, in one transaction; returns whether it did.
     */
    public boolean enqueueSlot(String name, Instant slot, InsertRow row) throws SQLException {
        return jdbc.transaction(c -> {
            if (Jdbc.update(c, sql.get("cronSlotAdvance"), p -> p.timestamptz(slot).text(name).timestamptz(slot)) == 0) {
                return false;
            }
            if (jobs.insertMany(c, List.of(row)).getFirst().ready()) {
                queues.notify(c, List.of(row.queue()));
            }
            return true;
        });
    }
}
