package dev.docket;

import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.ScheduleQueries;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.enqueue.SignalSender;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.maintenance.CronEnqueuer;
import dev.docket.internal.migrate.SchemaGuard;
import dev.docket.internal.observe.JobObserver;
import java.time.Duration;
import java.util.List;

/**
 * What a {@link Docket} shares with the workers it starts: its tables, payload codec, kinds, schema
 * check, periodic schedules, retention settings, the observer its metrics and traces go through, and
 * the rate limits it declares; how it sends signals (for its admin's operator signals), and the keys of
 * payloads encrypted at rest.
 * Immutable; made once by the Docket.
 */
record DocketWiring(Database store, SchemaName schema, PayloadCodec codec, KindRegistry kinds, SchemaGuard schemaGuard,
              List<CronEnqueuer.Schedule> schedules, Duration historyRetention, Duration deadJobRetention,
              JobObserver observer, List<RateLimit> rateLimits, SignalSender signals, PayloadCrypto crypto) {

    /**
     * The job a slot of a stored schedule enqueues: its payload and options with the kind's defaults as
     * this node declares them, as an enqueue of the same kind from this node would get.
     */
    InsertRow storedScheduleRow(ScheduleQueries.Stored s) {
        JobOptions.Builder options = JobOptions.builder();
        if (s.queue() != null) {
            options.queue(s.queue());
        }
        if (s.priority() != null) {
            options.priority(s.priority());
        }
        if (s.maxAttempts() != null) {
            options.maxAttempts(s.maxAttempts());
        }
        return kinds.row(NewJob.of(s.kind(), codec.readTree(s.payloadJson()), options.build()));
    }
}
