package dev.docket;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * Moving one queue from one database to another, begun by {@link DocketRouter#startMove}: the queue
 * never has jobs in two databases, and no enqueue is lost (a refused one says so to its caller).
 *
 * <ol>
 *   <li><b>Pause</b> ({@link DocketRouter#startMove}): the router refuses enqueues into the queue
 *       ({@link DocketException}) from now on, so nothing new arrives in the old database.</li>
 *   <li><b>Drain</b> ({@link #awaitDrained}): the old database's workers finish the queue's jobs.
 *       Jobs scheduled far ahead keep it from draining: wait for them, or cancel and re-enqueue them
 *       after the move. A queue paused in the old database ({@link DocketAdmin#pauseQueue}) does not
 *       drain until it is resumed there.</li>
 *   <li><b>Switch and resume</b> ({@link #complete}): once the old database holds none of its jobs,
 *       the queue is routed to the new one and enqueues are accepted again. Serve it there first (a
 *       worker of the new database with the queue), so that its first jobs do not wait.</li>
 * </ol>
 *
 * <p>{@link #cancel} ends the move without switching. The route lives in the router, one per
 * process: with several processes enqueueing, each router must take the same steps (see
 * docs/multi-database.md, "Moving a queue").
 */
public final class QueueMove {

    private final DocketRouter router;
    private final String queue;
    private final String from;
    private final String to;

    QueueMove(DocketRouter router, String queue, String from, String to) {
        this.router = router;
        this.queue = queue;
        this.from = from;
        this.to = to;
    }

    /** The queue being moved. */
    public String queue() {
        return queue;
    }

    /** The database the queue leaves. */
    public String from() {
        return from;
    }

    /** The database the queue goes to. */
    public String to() {
        return to;
    }

    /** How many of the queue's jobs the old database still holds (not finished: scheduled, ready, running, waiting). */
    public long remaining() {
        return router.database(from).admin().liveJobs(queue);
    }

    /**
     * Waits up to {@code timeout} for the old database to hold none of the queue's jobs, checking every
     * 100 ms (a drain is measured in seconds to hours, and the check is one index count).
     *
     * @return true when drained; false when {@code timeout} passed first (see {@link #remaining})
     */
    public boolean awaitDrained(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (remaining() > 0) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /**
     * Routes the queue to the new database and accepts enqueues again.
     *
     * @throws IllegalStateException when the old database still holds jobs of the queue (nothing changes),
     *                               or the move already ended
     */
    public void complete() {
        long left = remaining();
        if (left > 0) {
            throw new IllegalStateException("docket: queue '" + queue + "' still has " + left
                    + " live jobs in database '" + from + "'; let it drain before switching it to '" + to + "'");
        }
        router.finishMove(queue, from, to, true);
    }

    /**
     * Ends the move without switching: the queue stays in the old database, and enqueues are accepted there again.
     *
     * @throws IllegalStateException when the move already ended
     */
    public void cancel() {
        router.finishMove(queue, from, to, false);
    }

    @Override
    public String toString() {
        return "QueueMove[" + queue + ": " + from + " -> " + to + "]";
    }
}
