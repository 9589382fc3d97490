package dev.docket;

import java.sql.Connection;
import java.util.Collection;
import java.util.List;

/**
 * Enqueueing, which {@link Docket} implements: one symmetric family. Each form enqueues one job, one
 * job with options, or many jobs, in a transaction of its own or (a {@link Connection} first) in the
 * caller's, where the jobs exist if and only if that transaction commits; the caller's transaction is
 * never committed, rolled back or closed here. The family comes in two flavours:
 *
 * <ul>
 *   <li><b>By {@link JobKind}</b>: the payload type-checked, and the answer says for each job what was
 *       enqueued: its id, and whether this call inserted it or found a live job that already held its
 *       unique key ({@link Enqueued}). {@link JobKind#named(String)} is the kind of a name, when the
 *       payload type is the caller's choice; {@link #enqueueJobs} takes jobs of any kinds at once.</li>
 *   <li><b>By name</b> ({@code "send_email"}): the job's id, or the ids in the order given. A job whose
 *       unique key a live job holds answers that job's id.</li>
 * </ul>
 *
 * <p>Options a job leaves unset take its kind's {@link JobKind#defaults()}, payload version and
 * retry policy's max attempts; a kind known only by name gets the settings declared for that name
 * on the {@link Docket.Builder} ({@link Docket.Builder#kind}), if any.
 *
 * <p>An interface so that code that only enqueues can depend on it, and its tests on a fake.
 *
 * <p>Every form throws {@link IllegalArgumentException} for a bad kind name, a payload that is not
 * JSON-mappable or is larger than the Docket's {@code maxPayloadBytes}, or options the database would
 * refuse, and {@link DocketException} when the database fails; either way nothing is enqueued by a
 * form with a transaction of its own.
 */
public interface Enqueuer {

    /** Enqueues a job of {@code kind} with the kind's defaults. */
    <T> Enqueued enqueue(JobKind<T> kind, T payload);

    /** Enqueues a job of {@code kind}; options left unset take the kind's defaults. */
    <T> Enqueued enqueue(JobKind<T> kind, T payload, JobOptions options);

    /** Enqueues many jobs of {@code kind} with the kind's defaults, in one insert; answers them in the order given. */
    <T> List<Enqueued> enqueueAll(JobKind<T> kind, Collection<? extends T> payloads);

    /**
     * Enqueues many jobs of any kinds, each with its own options ({@link NewJob#of(JobKind, Object,
     * JobOptions)}, {@link NewJob#of(String, Object, JobOptions)}), in one insert; answers them in the
     * order given. {@link #enqueueAll(List)} is the same, answering ids.
     */
    List<Enqueued> enqueueJobs(List<NewJob> jobs);

    /** {@link #enqueue(JobKind, Object)} inside the caller's transaction. */
    <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload);

    /** {@link #enqueue(JobKind, Object, JobOptions)} inside the caller's transaction. */
    <T> Enqueued enqueue(Connection tx, JobKind<T> kind, T payload, JobOptions options);

    /** {@link #enqueueAll(JobKind, Collection)} inside the caller's transaction. */
    <T> List<Enqueued> enqueueAll(Connection tx, JobKind<T> kind, Collection<? extends T> payloads);

    /**
     * {@link #enqueueJobs(List)} inside the caller's transaction. A competing insert of the same unique
     * key that is still uncommitted is waited for: if it rolls back, this call inserts and says so.
     */
    List<Enqueued> enqueueJobs(Connection tx, List<NewJob> jobs);

    /** Enqueues a job of the kind named {@code kind} with {@link JobOptions#defaults()}; returns its id. */
    long enqueue(String kind, Object payload);

    /** Enqueues a job of the kind named {@code kind}; returns its id. */
    long enqueue(String kind, Object payload, JobOptions options);

    /** Enqueues many jobs in one insert; returns their ids in the order given. */
    List<Long> enqueueAll(List<NewJob> jobs);

    /** {@link #enqueue(String, Object)} inside the caller's transaction. */
    long enqueue(Connection tx, String kind, Object payload);

    /**
     * {@link #enqueue(String, Object, JobOptions)} inside the caller's transaction: the job exists if
     * and only if that transaction commits; idle workers are woken at its commit.
     */
    long enqueue(Connection tx, String kind, Object payload, JobOptions options);

    /** {@link #enqueueAll(List)} inside the caller's transaction, with one insert statement (not one per job). */
    List<Long> enqueueAll(Connection tx, List<NewJob> jobs);
}
