package dev.docket.internal.producer;

import dev.docket.QueueSettings;
import dev.docket.RateLimit;
import dev.docket.RateLimitSettings;
import dev.docket.internal.db.Database;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.PeriodicService;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the cluster-wide queue settings and rate limits every interval (default 1 s) so that producers
 * know which claim a queue needs. A pause does not wait for it: the claim itself checks the pause
 * flag; nor does a changed limit: the rate-limited claim reads the limits it applies in its own
 * transaction. Its first round writes the limits this node declares ({@code Docket.Builder.rateLimit}).
 */
public final class QueueSettingsWatcher extends PeriodicService {

    private static final Logger log = LoggerFactory.getLogger(QueueSettingsWatcher.class);

    private final Database store;
    private final List<RateLimit> declaredLimits;
    private volatile boolean declared;
    private volatile Map<String, QueueSettings> settings = Map.of();
    private volatile Set<String> limitedQueues = Set.of();
    private volatile Set<String> limitedKinds = Set.of();

    /** A watcher that declares no rate limits. */
    public QueueSettingsWatcher(Database store, Duration interval) {
        this(store, interval, List.of());
    }

    public QueueSettingsWatcher(Database store, Duration interval, Collection<RateLimit> declaredLimits) {
        super("docket-queue-settings", interval, new Backoff(interval, Duration.ofSeconds(5)), log);
        this.store = store;
        this.declaredLimits = List.copyOf(declaredLimits);
    }

    /** The last settings read for {@code queue} (defaults if it has none). */
    public QueueSettings settings(String queue) {
        QueueSettings s = settings.get(queue);
        return s != null ? s : QueueSettings.defaults(queue);
    }

    /**
     * Whether the claims of {@code queue} by a worker with handlers for {@code kinds} must respect rate
     * limits: the queue has one, or one of those kinds has one.
     */
    public boolean rateLimited(String queue, Set<String> kinds) {
        Set<String> limited = limitedKinds;
        return limitedQueues.contains(queue) || !limited.isEmpty() && !Collections.disjoint(limited, kinds);
    }

    @Override
    public void runOnce() throws SQLException {
        if (!declared) {
            store.rateLimits().declare(declaredLimits);
            declared = true;
        }
        Map<String, QueueSettings> fresh = new ConcurrentHashMap<>();
        store.queues().list().forEach(q -> fresh.put(q.queue(), q));
        Set<String> queues = new HashSet<>();
        Set<String> kinds = new HashSet<>();
        for (RateLimitSettings s : store.rateLimits().list()) {
            (s.limit().scope() == RateLimit.Scope.QUEUE ? queues : kinds).add(s.limit().name());
        }
        settings = fresh;
        limitedQueues = Set.copyOf(queues);
        limitedKinds = Set.copyOf(kinds);
    }
}
