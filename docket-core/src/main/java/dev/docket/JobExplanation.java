package dev.docket;

import java.util.List;
import java.util.Map;

/**
 * Why a job is not running, or what it is doing ({@link DocketAdmin#explain(long)}): computed from the
 * database at the time of the call (the job, its queue's settings and load, and the registered workers).
 *
 * @param jobId   the job
 * @param state   its state
 * @param queue   its queue
 * @param kind    its kind
 * @param reasons the answer, what holds it first: for a waiting job everything that keeps it waiting (a
 *                scheduled job in a paused queue gets both {@link Code#SCHEDULED} and {@link Code#QUEUE_PAUSED});
 *                never empty
 */
public record JobExplanation(long jobId, JobState state, String queue, String kind, List<Reason> reasons) {

    public JobExplanation {
        reasons = List.copyOf(reasons);
    }

    /**
     * One reason.
     *
     * @param code    what kind of reason, stable for scripts
     * @param message the reason as a sentence, with its figures
     * @param facts   its figures by name (times as ISO-8601 instants, counts as digits): {@code runAt},
     *                {@code attempt}, {@code worker}, {@code leaseUntil}, {@code ahead}, ... as the code documents
     */
    public record Reason(Code code, String message, Map<String, String> facts) {

        public Reason {
            facts = Map.copyOf(facts);
        }
    }

    /**
     * The answers. A later version may add codes: treat an unknown code as "waiting, see the message".
     */
    public enum Code {
        /** Enqueued for later; facts: {@code runAt}. */
        SCHEDULED,
        /** Failed attempt {@code attempt} and waits out its backoff; facts: {@code attempt}, {@code runAt}. */
        BACKING_OFF,
        /** Due, waiting for the maintenance leader to make it ready (within a maintenance round); facts: {@code runAt}. */
        DUE,
        /** Due, but no maintenance leader holds its lease, so nothing makes it ready; facts: {@code runAt}. */
        NO_MAINTENANCE_LEADER,
        /** Its queue is paused. */
        QUEUE_PAUSED,
        /** Its queue's cap is reached; facts: {@code running}, {@code maxRunning}. */
        QUEUE_AT_CAP,
        /** Its tenant's cap in the queue is reached; facts: {@code tenant}, {@code running}, {@code tenantMaxRunning}. */
        TENANT_AT_CAP,
        /** No live worker serves its queue. */
        NO_WORKER_FOR_QUEUE,
        /** Live workers serve its queue, none of them its kind; facts: {@code workers}. */
        KIND_NOT_SERVED,
        /**
         * Its payload version is newer than every live worker's handler reads (a rolling deploy in progress);
         * facts: {@code payloadVersion}, {@code servedVersion} (absent when no live worker serves the kind).
         */
        WAITING_FOR_NEWER_VERSION,
        /** Every slot of the live workers serving its queue is busy; facts: {@code running}, {@code slots}, {@code ahead}. */
        SLOTS_BUSY,
        /** Ready with a free slot: the next claim takes it (after {@code ahead} jobs before it); facts: {@code ahead}. */
        READY,
        /**
         * Running; facts: {@code worker}, {@code since}, {@code leaseUntil}, {@code attempt}, and {@code workerLive}
         * ({@code false} when its worker's heartbeats stopped: the rescuer takes it back when the lease ends).
         */
        RUNNING,
        /** Its lease ran out while running: the maintenance leader's rescuer puts it back; facts: {@code leaseUntil}. */
        LEASE_EXPIRED,
        /** Not waiting: it completed, was cancelled or is dead; facts: {@code finishedAt}, and {@code reason} when dead. */
        FINISHED,
        /**
         * Waiting behind the head of its sequence ({@link JobOptions.Builder#sequenceKey}): the head runs
         * (or retries) first; facts: {@code sequenceKey}, {@code headJobId}, {@code waitingAhead} (waiting
         * jobs of the key between the head and it).
         */
        SEQUENCE_WAITING,
        /**
         * Its sequence is halted by a dead job ({@link JobOptions.Builder#haltSequenceOnDeath}) until that job
         * is retried or discarded; facts: {@code sequenceKey}, {@code deadJobId}.
         */
        SEQUENCE_HALTED,
        /**
         * Ready, but a rate limit it counts towards has no permit left in its current window: the claim skips
         * it (and takes other jobs) until one frees; facts: {@code scope} ({@code kind} or {@code queue}),
         * {@code name}, {@code permits}, {@code period} (ISO-8601), {@code used}, {@code nextPermitAt}, and
         * {@code tenant} for a limit with a budget per tenant. One reason per such limit.
         */
        RATE_LIMITED,
        /**
         * Waiting for jobs it depends on ({@link JobOptions.Builder#dependsOn}); facts: {@code waitingFor} (how many),
         * {@code dependencies} (the first ten ids, comma-separated), {@code mode}, and {@code delayAfterDependencies}
         * (ISO-8601) when it has a timer ({@link JobOptions.Builder#delayAfterDependencies}).
         */
        WAITING_FOR_DEPENDENCIES,
        /**
         * Waiting for a signal ({@link JobOptions.Builder#awaitSignal}, {@link JobContext#awaitSignal}); facts:
         * {@code signal}, {@code since}, and for a wait with a timeout {@code deadline} and {@code onTimeout}
         * ({@code run}, {@code fail} or {@code cancel}).
         */
        WAITING_FOR_SIGNAL,
        /**
         * Debounced ({@link JobOptions.Builder#debounce}) and not yet due: another enqueue of its kind with its key
         * absorbs into it and moves its run time on, never past its deadline; facts: {@code debounceKey},
         * {@code runAt}, {@code deadline} (the latest it runs however many enqueues follow), {@code enqueues}
         * (how many it absorbed, its first included).
         */
        DEBOUNCED
    }
}
