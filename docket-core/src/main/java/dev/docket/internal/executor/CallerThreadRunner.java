package dev.docket.internal.executor;

import dev.docket.JobRun;
import dev.docket.RetryPolicy;
import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.Outcome;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.observe.JobObserver;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs the ready jobs of some queues one at a time on the calling thread, for tests that enqueue,
 * run and assert without a background worker. It takes the path of a started worker's jobs: the
 * same claim (attempt counted, lease taken), the same handler invocation and outcome rules
 * ({@link JobExecutor}), the same fenced outcome writes; there is no heartbeat, so a handler that
 * outlives the lease may be rescued meanwhile by a maintenance leader and then reports
 * {@link JobRun.Result#LEASE_LOST}.
 */
public final class CallerThreadRunner {

    /** The most runs one call makes before it stops with an error: a job that re-enqueues itself without end. */
    public static final int MAX_RUNS = 10_000;

    private final Database store;
    private final Map<String, HandlerBinding<?>> handlers;
    private final Function<String, RetryPolicy> retryPolicies;
    private final PayloadCodec codec;
    private final PayloadCrypto crypto;
    private final List<String> queues;
    private final Duration lease;
    private final String workerId;
    private final boolean keepHistory;

    public CallerThreadRunner(Database store, Map<String, HandlerBinding<?>> handlers,
                              Function<String, RetryPolicy> retryPolicies, PayloadCodec codec, PayloadCrypto crypto,
                              List<String> queues, Duration lease, String workerId, boolean keepHistory) {
        this.store = store;
        this.crypto = crypto;
        this.handlers = Map.copyOf(handlers);
        this.retryPolicies = retryPolicies;
        this.codec = codec;
        this.queues = List.copyOf(queues);
        this.lease = lease;
        this.workerId = workerId;
        this.keepHistory = keepHistory;
    }

    /** Makes the scheduled jobs of the queues that fall due within {@code horizon} ready now; returns how many. */
    public int makeDue(Duration horizon) throws SQLException {
        return store.jobs().makeDue(queues, horizon.toMillis());
    }

    /**
     * Claims and runs one job at a time, queue after queue in the order given, until a pass over every
     * queue finds none ready; jobs the handlers enqueue run too. Returns the runs in the order they ran.
     *
     * @throws IllegalStateException after {@link #MAX_RUNS} runs with jobs still ready
     */
    public List<JobRun> runReady() throws SQLException {
        List<JobRun> runs = new ArrayList<>();
        // Jobs run here for a test are neither measured nor traced.
        try (JobExecutor executor = new JobExecutor(handlers, retryPolicies, codec, crypto, null, store, new InFlight(),
                workerId, JobObserver.NONE, keepHistory)) {
            Map<String, Duration> kindLeases = executor.kindLeases();
            boolean ranAny = true;
            while (ranAny) {
                ranAny = false;
                for (String queue : queues) {
                    List<ClaimedJob> claimed = store.claims().claim(queue, 1, lease, kindLeases, workerId);
                    if (claimed.isEmpty()) {
                        continue;
                    }
                    if (runs.size() == MAX_RUNS) {
                        // Given back untouched, its attempt not counted, so the test's next look finds it ready.
                        store.outcomes().writeOutcomes(workerId,
                                List.of(new Outcome.Released(claimed.getFirst().fence(), true)), keepHistory);
                        throw new IllegalStateException("ran " + MAX_RUNS + " jobs and more are ready: does a "
                                + "handler enqueue jobs, or snooze for zero, without end?");
                    }
                    runs.add(run(executor, claimed.getFirst()));
                    ranAny = true;
                }
            }
        }
        return runs;
    }

    private JobRun run(JobExecutor executor, ClaimedJob job) throws SQLException {
        JobExecutor.Ran ran = executor.runHere(job);
        Outcome outcome = ran.outcome();
        if (outcome == null) {
            return runOf(job, JobRun.Result.AWAITING_NEWER_VERSION, null);
        }
        if (ran.fencedOut() || !ran.written()
                && !store.outcomes().writeOutcomes(workerId, List.of(outcome), keepHistory).contains(job.fence())) {
            return runOf(job, JobRun.Result.LEASE_LOST, null);
        }
        return switch (outcome) {
            case Outcome.Completed c -> runOf(job, JobRun.Result.COMPLETED, null);
            case Outcome.Retry r -> runOf(job, JobRun.Result.RETRYING, r.error());
            case Outcome.Dead d -> runOf(job, JobRun.Result.DEAD, d.error());
            case Outcome.Snoozed s -> runOf(job, JobRun.Result.SNOOZED, null);
            case Outcome.AwaitSignal a -> runOf(job, JobRun.Result.AWAITING_SIGNAL, null);
            case Outcome.Released r -> throw new IllegalStateException("job " + job.id()
                    + " was released, which only a worker's shutdown does");
        };
    }

    private static JobRun runOf(ClaimedJob job, JobRun.Result result, String error) {
        return new JobRun(job.id(), job.kind(), job.queue(), job.attempt(), result, error);
    }
}
