package dev.docket.internal.enqueue;

import dev.docket.ExternalTransactions;
import dev.docket.SignalDelivery;
import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Jdbc;
import dev.docket.internal.db.SignalQueries.Sent;
import dev.docket.internal.notify.EnqueueNotifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends signals to jobs, in the caller's transaction or one of its own (or one managed elsewhere, as
 * enqueue joins it), and wakes the workers of a job the signal made ready the way an enqueue does: this
 * process's at once after the commit, the others' by a notification rate-limited per queue.
 */
public final class SignalSender {

    private static final Logger log = LoggerFactory.getLogger(SignalSender.class);

    private final Jdbc jdbc;
    private final Database store;
    private final JobInserter.SchemaCheck schemaCheck;
    private final EnqueueNotifier notifier;
    private final Consumer<Set<String>> wakeLocalWorkers;
    private final ExternalTransactions externalTransactions;
    private final PayloadCrypto crypto;

    /** {@code notifier} null: signals notify nobody; {@code externalTransactions} null: never joined. */
    public SignalSender(Database store, JobInserter.SchemaCheck schemaCheck, EnqueueNotifier notifier,
                        Consumer<Set<String>> wakeLocalWorkers, ExternalTransactions externalTransactions,
                        PayloadCrypto crypto) {
        this.crypto = crypto;
        this.jdbc = new Jdbc(store.dataSource(), store.networkTimeout());
        this.store = store;
        this.schemaCheck = schemaCheck;
        this.notifier = notifier;
        this.wakeLocalWorkers = wakeLocalWorkers;
        this.externalTransactions = externalTransactions;
    }

    /** Sends inside the caller's transaction; never commits, rolls back or closes {@code tx}. */
    public SignalDelivery send(Connection tx, long jobId, String name, String payloadJson, String sentBy)
            throws SQLException {
        schemaCheck.require(tx);
        Sent sent = sendOn(tx, jobId, name, payloadJson, sentBy);
        notifyWorkers(tx, sent);
        return delivery(sent);
    }

    /** Sends in a transaction managed elsewhere when there is one ({@link ExternalTransactions}), else in one of its own. */
    public SignalDelivery sendJoiningOrOwn(long jobId, String name, String payloadJson, String sentBy)
            throws SQLException {
        Connection tx = externalTransactions == null ? null : externalTransactions.currentConnection();
        if (tx == null) {
            return jdbc.autoCommit(c -> {
                schemaCheck.require(c);
                Sent sent = sendOn(c, jobId, name, payloadJson, sentBy);
                if (sent.readyQueue() != null) {
                    wakeLocalWorkers.accept(Set.of(sent.readyQueue()));
                    try {
                        notifyWorkers(c, sent);
                    } catch (SQLException e) {
                        // The signal committed: failing the call would make the caller send it again.
                        log.warn("docket: a signal resumed job {} but its notification failed; workers will find it "
                                + "at their next poll: {}", jobId, e.getMessage());
                    }
                }
                return delivery(sent);
            });
        }
        try {
            Sent sent = sendOn(tx, jobId, name, payloadJson, sentBy);
            notifyWorkers(tx, sent);
            if (sent.readyQueue() != null) {
                externalTransactions.afterCommit(() -> wakeLocalWorkers.accept(Set.of(sent.readyQueue())));
            }
            return delivery(sent);
        } finally {
            externalTransactions.release(tx);
        }
    }

    /**
     * Sends in clear, unless the job's payload is encrypted (whatever this process knows of its kind, so that a
     * sender that does not declare the kind still never stores it in clear): then encrypted, or refused when that
     * needs keys this process does not have. In clear it is one statement, as before encryption existed; the
     * encrypted case takes a second, on the same connection.
     */
    private Sent sendOn(Connection c, long jobId, String name, String payloadJson, String sentBy) throws SQLException {
        PayloadCrypto.refuseEnvelopeShape(payloadJson, "the payload of signal " + name);
        Optional<Sent> inClear = store.signals().sendInClear(c, jobId, name, payloadJson, sentBy);
        if (inClear.isPresent()) {
            return inClear.get();
        }
        String sealed = crypto.seal(payloadJson, PayloadCrypto.signalContext(jobId, name), "the payload of signal "
                + name + " to job " + jobId + " (whose payload is encrypted)");
        return store.signals().send(c, jobId, name, sealed, sentBy);
    }

    private void notifyWorkers(Connection c, Sent sent) throws SQLException {
        if (notifier != null && sent.readyQueue() != null) {
            notifier.afterInsert(c, Set.of(sent.readyQueue()));
        }
    }

    private static SignalDelivery delivery(Sent sent) {
        return switch (sent.result()) {
            case "resumed" -> SignalDelivery.RESUMED;
            case "kept" -> SignalDelivery.KEPT;
            default -> SignalDelivery.NO_LIVE_JOB;
        };
    }
}
