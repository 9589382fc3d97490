package dev.docket;

import java.sql.Connection;

/**
 * Runs one kind of job inside a database transaction that also completes the job: what the handler
 * writes on {@code tx} and the job's completion commit together or not at all. Register it with
 * {@link Worker.Builder#transactionalHandler(String, Class, TransactionalJobHandler)}.
 *
 * <p>The guarantee: each job's writes on {@code tx} become visible exactly once. Docket opens the
 * transaction on a connection of the Docket's data source, calls the handler, then, in the same
 * transaction, completes the job fenced on the attempt it claimed (its id, attempt and worker). If
 * that fence matches nothing (the lease was lost and the rescuer or another attempt owns the job),
 * the whole transaction rolls back. If the handler throws, its writes roll back and the failure takes
 * the usual path ({@link PermanentJobFailure}, retries with backoff, the dead-letter table, the kind's
 * timeout). {@link JobContext#snooze} works too: the handler's writes then commit with the snooze.
 * Everything the handler does outside {@code tx} (HTTP calls, e-mails, writes on other connections)
 * is still at least once.
 *
 * <p>{@code tx} is Docket's: the handler may run statements and use savepoints on it, but not commit,
 * roll back (all of it), change its auto-commit or close it (those throw {@link IllegalStateException});
 * it must not keep it after returning. It carries Docket's {@code networkTimeout} (30 s by default):
 * a statement whose answer takes longer fails, unless the handler raises it with
 * {@link Connection#setNetworkTimeout}. Its transaction commits durably even with
 * {@link Worker.Builder#asyncCommit(boolean)}.
 *
 * <p>Cost: one pool connection per running transactional job, held for the handler's whole run, on
 * top of a worker's {@code queues + 6}; one transaction per job instead of the batched completions of
 * {@link JobHandler}s.
 *
 * @param <T> the payload type, mapped from the job's JSON with Jackson
 */
@FunctionalInterface
public interface TransactionalJobHandler<T> {

    /**
     * Does the job's database work on {@code tx}. Returning commits it together with the job's
     * completion; throwing rolls it back and fails the attempt.
     */
    void handle(T payload, JobContext ctx, Connection tx) throws Exception;
}
