package dev.docket.internal.executor;

import dev.docket.internal.db.Database;
import dev.docket.internal.db.Outcome;
import java.sql.Connection;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a transactional handler's attempt: the handler's work and its job's outcome in one transaction,
 * the outcome fenced like the completer's. The handler threw: everything rolls back and its exception
 * goes on to the executor's usual failure path. The fence matched nothing (the lease was lost): everything
 * rolls back and the attempt is marked fenced out, with nothing left to write.
 */
record TransactionalAttempts(Database store, String workerId, boolean keepHistory) {

    private static final Logger log = LoggerFactory.getLogger(TransactionalAttempts.class);

    /** The handler's part of the transaction. */
    @FunctionalInterface
    interface Work {
        void run(Connection tx) throws Exception;
    }

    /** Carries the handler's exception out of the transaction, which rolls back on its way. */
    private static final class HandlerThrew extends RuntimeException {
        HandlerThrew(Exception cause) {
            super(null, cause, false, false);
        }
    }

    /**
     * Runs {@code work} and writes {@code returned}'s outcome in its transaction; returns that outcome,
     * written ({@link RunningJob#isCommitted()}) or fenced out ({@link RunningJob#isLost()}). A failure of
     * the transaction itself (a lost connection, a failed commit) is thrown like the handler's own: the
     * completer then writes a retry, fenced, which matches nothing if the commit happened after all.
     */
    Outcome run(RunningJob running, Work work, Supplier<Outcome> returned) throws Exception {
        Outcome written;
        try {
            written = store.outcomes().writeOutcomeWith(workerId, keepHistory, c -> {
                try {
                    work.run(DocketTransaction.of(c));
                } catch (Exception e) {
                    throw new HandlerThrew(e);
                }
                // The handler is done: neither its timeout nor a lost heartbeat may interrupt the commit now,
                // and an interrupt that came after its work (or that it ignored) must not fail it: the fence
                // decides whether this attempt still owns the job.
                running.detach();
                Thread.interrupted();
                return returned.get();
            });
        } catch (HandlerThrew e) {
            throw (Exception) e.getCause();
        }
        if (written == null) {
            running.fencedOut();
            log.warn("docket: job {} attempt {} ({}): fenced out: the lease was lost before the transaction "
                    + "committed; the handler's writes were rolled back", running.fence().id(),
                    running.fence().attempt(), running.job().kind());
            return returned.get();
        }
        running.committed();
        return written;
    }
}
