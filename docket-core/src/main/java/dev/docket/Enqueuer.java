package dev.docket;

import dev.docket.internal.db.InsertRow;
import java.sql.Connection;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The enqueue family, which {@link Docket} is: one job, one job with options, many jobs; each in
 * a transaction of its own or in the caller's (a {@link Connection} first). The typed forms take a
 * {@link JobKind} and say, for every job, whether it was inserted or a live job already held its
 * unique key. The string-kind forms are the thin form for kinds known only by name; those returning
 * ids keep their first signatures. Code that only enqueues may depend on this type rather than on
 * the whole {@link Docket}.
 */
public abstract sealed class Enqueuer permits Docket {

    Enqueuer() {
    }

    /** What this Docket knows about kinds; where every job's row is made. */
    abstract Kinds kinds();

    /** Inserts rows in a transaction of their own ({@code tx} null) or in the caller's. */
    abstract List<Enqueued> enqueueRows(Connection tx, List<InsertRow> rows);

    /**
     * Enqueues a job of {@code kind} with the kind's defaults, in its own transaction.
     *
     * @return its id, and that it was inserted
     * @throws IllegalArgumentException for a payload that is not JSON-mappable or too large
     * @throws DocketException          when the database fails
     */
    public <T> Enqueued enqueue(JobKind<T> kind, T payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job of {@code kind} in its own transaction. Options left unset take the kind's
     * {@link JobKind#defaults()}, payload version and retry policy's max attempts. With a unique key
     * that a live job already holds, nothing is inserted and that job is returned.
     *
     * @throws IllegalArgumentException for a payload that is not JSON-mappable or too large
     * @throws DocketException          when the database fails
     */
    public <T> Enqueued enqueue(JobKind<T> kind, T payload, JobOptions options) {
        return enqueueRows(null, List.of(kinds().row(kind, payload, options))).getFirst();
    }

    /**
     * Enqueues many jobs of {@code kind} with the kind's defaults in one transaction of their own and
     * one insert; returns them in the order given.
     */
    public <T> List<Enqueued> enqueueAll(JobKind<T> kind, Collection<? extends T> payloads) {
        return enqueueRows(null, kinds().rows(kind, payloads));
    }

    /** Like {@link #enqueue(JobKind, Object)}, inside the caller's transaction (see {@link #enqueue(Connection, String, Object, JobOptions)}). */
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    /**
     * Like {@link #enqueue(JobKind, Object, JobOptions)}, inside the caller's transaction: the job
     * exists if and only if that transaction commits. Never commits, rolls back or closes {@code tx}.
     */
    public <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload, JobOptions options) {
        return enqueueRows(Objects.requireNonNull(tx, "tx"), List.of(kinds().row(kind, payload, options))).getFirst();
    }

    /** Like {@link #enqueueAll(JobKind, Collection)}, inside the caller's transaction. */
    public <T> List<Enqueued> enqueueAll(Connection tx, JobKind<T> kind, Collection<? extends T> payloads) {
        return enqueueRows(Objects.requireNonNull(tx, "tx"), kinds().rows(kind, payloads));
    }

    /** Enqueues a job with {@link JobOptions#defaults()} in its own transaction and returns its id. */
    public long enqueue(String kind, Object payload) {
        return enqueue(kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job in its own transaction and returns its id. With a unique key that a live job
     * already holds, nothing is inserted and that job's id is returned. A kind declared or configured
     * on the {@link Docket.Builder} gets its settings.
     *
     * @throws IllegalArgumentException for a bad kind or a payload that is not JSON-mappable or too large
     * @throws DocketException          when the database fails
     */
    public long enqueue(String kind, Object payload, JobOptions options) {
        return enqueueWithResult(kind, payload, options).id();
    }

    /** Like {@link #enqueue(Connection, String, Object, JobOptions)} with {@link JobOptions#defaults()}. */
    public long enqueue(Connection tx, String kind, Object payload) {
        return enqueue(tx, kind, payload, JobOptions.defaults());
    }

    /**
     * Enqueues a job inside the caller's transaction: the job exists if and only if that transaction
     * commits. Never commits, rolls back or closes {@code tx}; idle workers are woken at its commit.
     */
    public long enqueue(Connection tx, String kind, Object payload, JobOptions options) {
        return enqueueWithResult(tx, kind, payload, options).id();
    }

    /**
     * Enqueues a job in its own transaction and says whether it inserted it or found a live job with
     * the same unique key.
     */
    public Enqueued enqueueWithResult(String kind, Object payload, JobOptions options) {
        return enqueueRows(null, List.of(kinds().row(NewJob.of(kind, payload, options)))).getFirst();
    }

    /** Like {@link #enqueueWithResult(String, Object, JobOptions)}, inside the caller's transaction. */
    public Enqueued enqueueWithResult(Connection tx, String kind, Object payload, JobOptions options) {
        return enqueueRows(Objects.requireNonNull(tx, "tx"), List.of(kinds().row(NewJob.of(kind, payload, options)))).getFirst();
    }

    /**
     * Enqueues many jobs in one transaction of their own, in one insert; returns their ids in order.
     * Jobs of a {@link JobKind} are made with {@link NewJob#of(JobKind, Object, JobOptions)}.
     */
    public List<Long> enqueueAll(List<NewJob> jobs) {
        return enqueueAllWithResult(jobs).stream().map(Enqueued::id).toList();
    }

    /** Like {@link #enqueueAll(List)}, saying for each job whether it was inserted. */
    public List<Enqueued> enqueueAllWithResult(List<NewJob> jobs) {
        return enqueueRows(null, kinds().rows(jobs));
    }

    /**
     * Enqueues many jobs inside the caller's transaction with one insert statement (not one per job),
     * and returns their ids in the order given. Never commits, rolls back or closes {@code tx}.
     */
    public List<Long> enqueueAll(Connection tx, List<NewJob> jobs) {
        return enqueueAllWithResult(tx, jobs).stream().map(Enqueued::id).toList();
    }

    /**
     * Like {@link #enqueueAll(Connection, List)}, saying for each job whether this call inserted it or
     * found a live job holding its unique key. A competing insert that is still uncommitted is waited
     * for: if it rolls back, this call inserts and says so.
     */
    public List<Enqueued> enqueueAllWithResult(Connection tx, List<NewJob> jobs) {
        return enqueueRows(Objects.requireNonNull(tx, "tx"), kinds().rows(jobs));
    }
}
