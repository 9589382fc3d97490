package dev.docket.internal.enqueue;

import dev.docket.Enqueued;
import dev.docket.ExternalTransactions;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.db.Inserted;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Jdbc;
import dev.docket.internal.notify.EnqueueNotifier;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one insert path behind every enqueue form: inserts validated rows with one statement, in a
 * transaction of their own or in the caller's, and wakes the workers of the queues that got ready
 * jobs (this process's at once, the others' by notification at commit).
 */
public final class JobInserter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JobInserter.class);

    /** Checks the schema version on the connection about to insert (see {@code Docket.requireSchema}). */
    public interface SchemaCheck {
        void require(Connection c) throws SQLException;
    }

    private final Jdbc jdbc;
    private final Database store;
    private final SchemaCheck schemaCheck;
    private final EnqueueNotifier notifier;
    private final Consumer<Set<String>> wakeLocalWorkers;
    private final ExternalTransactions externalTransactions;
    private final DependencyLinker dependencies;

    /**
     * {@code notifier} null: enqueues notify nobody, and workers find jobs by polling.
     * {@code externalTransactions} null: an enqueue without a connection always commits on its own.
     */
    public JobInserter(DataSource dataSource, Database store, SchemaCheck schemaCheck, EnqueueNotifier notifier,
                       Consumer<Set<String>> wakeLocalWorkers, ExternalTransactions externalTransactions) {
        this.jdbc = new Jdbc(dataSource, store.networkTimeout());
        this.store = store;
        this.schemaCheck = schemaCheck;
        this.notifier = notifier;
        this.wakeLocalWorkers = wakeLocalWorkers;
        this.externalTransactions = externalTransactions;
        this.dependencies = new DependencyLinker(store.dependencies());
    }

    /** Inserts the rows inside the caller's transaction; never commits, rolls back or closes {@code tx}. */
    public List<Enqueued> insert(Connection tx, List<InsertRow> rows) throws SQLException {
        Set<String> readyQueues = new LinkedHashSet<>();
        List<Enqueued> result = insert(tx, rows, readyQueues);
        notifyWorkers(tx, readyQueues);
        return result;
    }

    /**
     * Inserts the rows for an enqueue that was given no connection: inside the caller's transaction
     * managed elsewhere when {@link ExternalTransactions} reports one, else in a transaction of their
     * own. Without {@code externalTransactions} this is {@link #insertOwnTransaction} and costs nothing more.
     */
    public List<Enqueued> insertJoiningOrOwn(List<InsertRow> rows) throws SQLException {
        if (externalTransactions == null) {
            return insertOwnTransaction(rows);
        }
        Connection tx = externalTransactions.currentConnection();
        if (tx == null) {
            return insertOwnTransaction(rows);
        }
        try {
            Set<String> readyQueues = new LinkedHashSet<>();
            List<Enqueued> result = insert(tx, rows, readyQueues);
            // Delivered by PostgreSQL at the commit, to other processes' listeners.
            notifyWorkers(tx, readyQueues);
            if (!readyQueues.isEmpty()) {
                // This process's workers must not look before the commit: they would find nothing and wait for the poll.
                externalTransactions.afterCommit(() -> wakeLocalWorkers.accept(readyQueues));
            }
            return result;
        } finally {
            externalTransactions.release(tx);
        }
    }

    /**
     * Inserts the rows in a transaction of their own. What one insert statement does alone commits by
     * itself (auto-commit, no round trip for BEGIN and COMMIT): one job without dependencies, or many
     * without dependencies, unique keys or sequence keys. Anything else commits together or not at all.
     */
    public List<Enqueued> insertOwnTransaction(List<InsertRow> rows) throws SQLException {
        Set<String> readyQueues = new LinkedHashSet<>();
        if (oneStatement(rows)) {
            return jdbc.autoCommit(c -> {
                List<Enqueued> result = insert(c, rows, readyQueues);
                // The insert committed by itself: local workers first, then the notification's round trip.
                wakeLocalWorkers.accept(readyQueues);
                notifyAfterCommit(c, readyQueues);
                return result;
            });
        }
        List<Enqueued> result = jdbc.transaction(c -> {
            List<Enqueued> inserted = insert(c, rows, readyQueues);
            notifyWorkers(c, readyQueues);
            return inserted;
        });
        wakeLocalWorkers.accept(readyQueues);
        return result;
    }

    private static boolean oneStatement(List<InsertRow> rows) {
        if (rows.size() == 1) {
            return !rows.getFirst().hasDependencies() && !rows.getFirst().awaitsSignal();
        }
        for (InsertRow row : rows) {
            if (row.hasDependencies() || row.uniqueKey() != null || row.sequenceKey() != null || row.awaitsSignal()
                    || row.debounce() != null) {
                return false;
            }
        }
        return true;
    }

    /** Inserts the rows; adds to {@code readyQueues} the queues that got jobs ready now. */
    private List<Enqueued> insert(Connection c, List<InsertRow> rows, Set<String> readyQueues) throws SQLException {
        if (rows.isEmpty()) {
            return List.of();
        }
        schemaCheck.require(c);
        // Jobs without dependencies pay one pass over the rows here, and nothing else.
        DependencyLinker.Checked dependencyCheck = null;
        for (InsertRow row : rows) {
            if (row.hasDependencies()) {
                dependencyCheck = dependencies.check(c, rows);
                break;
            }
        }
        List<Inserted> inserted = store.jobInserts().insertMany(c, rows);
        Set<Integer> notReady = dependencyCheck == null ? Set.of() : dependencyCheck.link(c, rows, inserted);
        Set<Integer> awaiting = awaitSignals(c, rows, inserted);
        if (!awaiting.isEmpty()) {
            notReady = new HashSet<>(notReady);
            notReady.addAll(awaiting);
        }
        List<Enqueued> ids = new ArrayList<>(inserted.size());
        for (int i = 0; i < inserted.size(); i++) {
            ids.add(new Enqueued(inserted.get(i).id(), inserted.get(i).inserted()));
            if (inserted.get(i).ready() && !notReady.contains(i)) {
                readyQueues.add(rows.get(i).queue());
            }
        }
        return ids;
    }

    /**
     * Makes the inserted jobs that wait for a signal ({@code JobOptions.awaitSignal}) wait, in the insert's
     * transaction; returns their indexes. Jobs that wait for none (nearly all) pay one pass over the rows.
     */
    private Set<Integer> awaitSignals(Connection c, List<InsertRow> rows, List<Inserted> inserted) throws SQLException {
        Set<Integer> awaiting = null;
        List<Long> ids = null;
        List<String> names = null;
        List<Long> timeouts = null;
        List<String> onTimeouts = null;
        for (int i = 0; i < rows.size(); i++) {
            InsertRow row = rows.get(i);
            if (!row.awaitsSignal() || !inserted.get(i).inserted()) {
                continue;
            }
            if (awaiting == null) {
                awaiting = new HashSet<>();
                ids = new ArrayList<>();
                names = new ArrayList<>();
                timeouts = new ArrayList<>();
                onTimeouts = new ArrayList<>();
            }
            awaiting.add(i);
            ids.add(inserted.get(i).id());
            names.add(row.waits().signal());
            timeouts.add(row.waits().timeoutMillis());
            onTimeouts.add(row.waits().onTimeout());
        }
        if (awaiting == null) {
            return Set.of();
        }
        store.jobInserts().awaitSignals(c, ids, names, timeouts, onTimeouts);
        return awaiting;
    }

    /**
     * Notifies for a single enqueue that has already committed. Its failure must not fail the
     * enqueue: the caller would enqueue the job again. The workers' poll finds the job instead.
     */
    private void notifyAfterCommit(Connection c, Set<String> readyQueues) {
        try {
            notifyWorkers(c, readyQueues);
        } catch (SQLException e) {
            log.warn("docket: a job was enqueued but its notification failed; workers will find it at their next poll: {}",
                    e.getMessage());
        }
    }

    /** Sends (or schedules) the notifications for jobs just inserted on {@code c}, delivered at its commit. */
    private void notifyWorkers(Connection c, Set<String> readyQueues) throws SQLException {
        if (notifier != null) {
            notifier.afterInsert(c, readyQueues);
        }
    }

    /** Stops the notifier's rate limiting; every enqueue afterwards notifies at once. */
    @Override
    public void close() {
        if (notifier != null) {
            notifier.close();
        }
    }
}
