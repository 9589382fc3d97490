package dev.docket.internal.producer;

import dev.docket.QueueSettings;
import dev.docket.internal.db.Database;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the cluster-wide queue settings every interval (default 1 s) so that producers know which
 * claim a queue needs. A pause does not wait for it: the claim itself checks the pause flag.
 */
public final class QueueSettingsWatcher extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(QueueSettingsWatcher.class);

    private final Database store;
    private volatile Map<String, QueueSettings> settings = Map.of();

    public QueueSettingsWatcher(Database store, Duration interval) {
        super("docket-queue-settings", interval, new Backoff(interval, Duration.ofSeconds(5)), log);
        this.store = store;
    }

    /** The last settings read for {@code queue} (defaults if it has none). */
    public QueueSettings settings(String queue) {
        QueueSettings s = settings.get(queue);
        return s != null ? s : QueueSettings.defaults(queue);
    }

    @Override
    public void runOnce() throws SQLException {
        Map<String, QueueSettings> fresh = new ConcurrentHashMap<>();
        store.queues().list().forEach(q -> fresh.put(q.queue(), q));
        settings = fresh;
    }
}
