package dev.docket.internal.db;

import dev.docket.QueueSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;

/** The queues table (cluster-wide settings: paused, caps) and the notifications that wake a queue's workers. */
public record QueueQueries(Jdbc jdbc, Statements sql) {

    /** Every queue with settings of its own. */
    public List<QueueSettings> list() throws SQLException {
        return jdbc.list(sql.get("queueList"), Jdbc.NO_PARAMETERS, rs -> new QueueSettings(rs.getString("name"), rs.getBoolean("paused"),
                rs.getObject("max_running", Integer.class), rs.getObject("tenant_max_running", Integer.class),
                Jdbc.instant(rs, "updated_at")));
    }

    /** Whether the queue has settings of its own or any job, live, finished or dead. */
    public boolean known(String queue) throws SQLException {
        return jdbc.first(sql.get("queueKnown"), p -> p.text(queue).text(queue).text(queue).text(queue),
                rs -> rs.getBoolean("known")).orElse(false);
    }

    /** Pauses or resumes a queue cluster-wide, and wakes its workers. */
    public void setPaused(String queue, boolean paused) throws SQLException {
        jdbc.autoCommit(c -> {
            Jdbc.execute(c, sql.get("queueSetPaused"), p -> p.text(queue).bool(paused));
            return null;
        });
    }

    /** Sets a queue's cluster-wide caps (null: none), and wakes its workers. */
    public void setLimits(String queue, Integer maxRunning, Integer tenantMaxRunning) throws SQLException {
        jdbc.autoCommit(c -> {
            Jdbc.execute(c, sql.get("queueSetLimits"), p -> p.text(queue).int4(maxRunning).int4(tenantMaxRunning));
            return null;
        });
    }

    /** Queues a wake-up for each queue's idle workers, delivered when {@code c}'s transaction commits. */
    public void notify(Connection c, Collection<String> queues) throws SQLException {
        if (!queues.isEmpty()) {
            Jdbc.execute(c, sql.get("queueNotify"), p -> p.array("text", queues));
        }
    }

    /** Wakes each queue's idle workers now, on a connection of its own. */
    public void notify(Collection<String> queues) throws SQLException {
        jdbc.autoCommit(c -> {
            notify(c, queues);
            return null;
        });
    }
}
