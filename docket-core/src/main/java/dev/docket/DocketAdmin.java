package dev.docket;

import static dev.docket.internal.db.Database.call;
import static dev.docket.internal.db.Database.run;

import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.DeadJobQueries;
import dev.docket.internal.doctor.Doctor;
import dev.docket.internal.doctor.JobExplainer;
import dev.docket.internal.json.PayloadJson;
import dev.docket.internal.repair.PayloadRepairs;
import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.rules.ScheduleRules;
import dev.docket.internal.schedule.ScheduleChanges;
import dev.docket.internal.rules.TextRules;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Operations on the queue as a whole: listings, statistics, replay from the dead-letter table, and
 * periodic jobs stored at run time. Get it with {@link Docket#admin()}. Listings of jobs never read
 * payloads; use {@link Docket#job(long)} for one job's payload.
 */
public final class DocketAdmin {

    private final DocketWiring wiring;
    private final Database store;
    private final PayloadRepairs repairs;
    private final ScheduleChanges scheduleChanges;
    private final Workflows workflows;

    DocketAdmin(DocketWiring wiring, Workflows workflows) {
        this.wiring = wiring;
        this.store = wiring.store();
        this.repairs = new PayloadRepairs(store, wiring.codec(), wiring.crypto(), wiring.kinds()::encrypted);
        this.scheduleChanges = new ScheduleChanges(store, wiring.codec(), wiring.kinds()::encrypted);
        this.workflows = workflows;
    }

    /** The longest {@code sentBy} of {@link #sendSignal}, in characters. */
    public static final int MAX_SENT_BY = 200;

    /**
     * Sends a signal as an operator tool does (the REST API, the dashboard's approve button, {@code docket job
     * signal}): as {@link Docket#signal(long, String, Object)} in a transaction of its own, with the payload
     * given as JSON text read exactly (numbers keep their digits, a field name twice in one object is refused),
     * and who sent it recorded with the signal and, when it ends a wait, in the job's metadata under
     * {@code docket.signals} ({@code {"name", "at", "sentAt", "by"}}; never the payload).
     *
     * @param payloadJson JSON text within {@code maxPayloadBytes}, or {@code null} for {@code {}}
     * @param sentBy      who sends it: 1 to {@value #MAX_SENT_BY} printable characters ({@code "ada (operator, dashboard)"})
     * @throws IllegalArgumentException for a name, payload or {@code sentBy} that breaks these rules
     * @throws IllegalStateException    if the job already holds 100 kept signals
     */
    public SignalDelivery sendSignal(long jobId, String name, String payloadJson, String sentBy) {
        JobOptionRules.checkSignalName(name);
        if (sentBy == null || sentBy.isBlank() || sentBy.length() > MAX_SENT_BY || !TextRules.isName(sentBy)) {
            throw new IllegalArgumentException("sentBy must be 1 to " + MAX_SENT_BY + " printable characters, was "
                    + TextRules.describe(sentBy));
        }
        String json = payloadJson == null ? "{}" : wiring.codec().toJson(PayloadJson.parse(payloadJson, "payload"));
        return Docket.sendSignal(jobId, name, () -> wiring.signals().sendJoiningOrOwn(jobId, name, json, sentBy));
    }

    /** A workflow with each step's state ({@link Docket#enqueueWorkflow}); empty for an unknown id. */
    public Optional<WorkflowInfo> workflow(long workflowId) {
        return workflows.find(workflowId);
    }

    /**
     * Cancels every step of the workflow that has not finished (running steps are interrupted at their
     * worker's next heartbeat); returns how many. 0 for an unknown or finished workflow.
     */
    public long cancelWorkflow(long workflowId) {
        return workflows.cancel(workflowId);
    }

    /**
     * Re-runs the workflow's failed steps and what depends on them, in one transaction: dead steps are
     * replayed (same job, fresh attempts), cancelled steps (cancelled because a step they waited for
     * failed, or by {@link #cancelWorkflow}) are enqueued again as new jobs waiting for their steps'
     * current jobs. Returns how many steps it re-ran; 0 when none failed or the id is unknown. A dead
     * step whose unique key a live job holds stays dead, as with {@link #replayDead}.
     */
    public int retryWorkflow(long workflowId) {
        return workflows.retry(workflowId);
    }

    /** One page of jobs, wherever they live, newest first. */
    public List<JobSummary> jobs(JobQuery query) {
        Objects.requireNonNull(query, "query");
        return call("listing jobs", () -> store.jobs().list(query.state(), query.queue(), query.kind(), query.before(),
                query.limit()));
    }

    /** One page of the dead-letter table, newest first. */
    public List<JobSummary> deadJobs(DeadJobQuery query) {
        Objects.requireNonNull(query, "query");
        return call("listing dead jobs", () -> {
            if (query.signature() != null) {
                store.deadJobs().sign();
            }
            return store.deadJobs().list(DeadJobQueries.Filter.of(query), query.limit());
        });
    }

    /**
     * The dead-letter table grouped by kind and error signature (see {@link DeadJobGroup}), largest
     * groups first, at most {@code limit} (1 to 1000) groups; {@code kind} null for all. Signatures are
     * computed for the jobs that died since the last call first, so a group counts every job that died
     * before this call.
     */
    public List<DeadJobGroup> deadJobGroups(String kind, int limit) {
        if (kind != null) {
            JobOptionRules.checkKind(kind);
        }
        OptionChecks.between("limit", limit, 1, 1000);
        return call("grouping dead jobs", () -> {
            store.deadJobs().sign();
            return store.deadJobs().groups(kind, limit);
        });
    }

    /** The longest {@code changedBy} of a schedule change, in characters. */
    public static final int MAX_CHANGED_BY = ScheduleRules.MAX_CHANGED_BY;
    /** The most runs {@link #scheduleRuns} returns: as many as are kept per schedule. */
    public static final int MAX_SCHEDULE_RUNS = ScheduleChanges.MAX_RUNS;

    /**
     * Every periodic job, by name: those stored at run time and those some node's code declares
     * ({@link PeriodicJob}; written by the maintenance leader that declares them, from its first round),
     * each with its {@link ScheduleInfo#origin()}. Reads one small table.
     */
    public List<ScheduleInfo> schedules() {
        return scheduleChanges.list();
    }

    /** One schedule by name, stored or code-declared; empty if none has this name. */
    public Optional<ScheduleInfo> schedule(String name) {
        return scheduleChanges.find(name);
    }

    /**
     * Stores a periodic job in the database. The maintenance leader enqueues it from its next round with
     * the guarantee of a {@link PeriodicJob}: one job per slot across the cluster, however leadership
     * moves, and missed slots caught up as its {@link ScheduleDefinition#catchUp()} says. Its first slot is
     * the first after now. A kind that no live worker serves is accepted (its jobs wait for one, as any
     * enqueue's would): {@link ScheduleInfo#kindServed()} is false then, and the tools warn. A kind this
     * Docket encrypts (declared with {@link JobKind.Builder#encrypted()} or named by
     * {@code Docket.Builder.encryptedKind}) is refused: the schedules table would hold its
     * payload in clear; declare such a schedule in code ({@link PeriodicJob}), whose slots are encrypted.
     *
     * @param changedBy who creates it, for the record: 1 to {@value #MAX_CHANGED_BY} printable characters
     * @return the schedule as stored
     * @throws IllegalArgumentException for a payload that is not JSON an enqueue would accept (size, a field
     *                                  name twice, NUL), a kind this Docket encrypts, or a bad
     *                                  {@code changedBy}; nothing is written
     * @throws IllegalStateException    if a schedule of this name exists, stored or declared in code
     */
    public ScheduleInfo createSchedule(ScheduleDefinition definition, String changedBy) {
        return scheduleChanges.create(definition, changedBy);
    }

    /**
     * Replaces a stored schedule's definition (all of it: cron, zone, kind, payload, options, catch-up);
     * the leader applies it from its next round. A new cron or zone starts again at the first slot after
     * now (slots of the old expression are not caught up under the new one); other changes keep the
     * schedule's place, missed slots included.
     *
     * @return the schedule as changed; empty if no schedule has this name
     * @throws IllegalArgumentException as for {@link #createSchedule}
     * @throws IllegalStateException    if the schedule is declared in code: change it there
     */
    public Optional<ScheduleInfo> editSchedule(ScheduleDefinition definition, String changedBy) {
        return scheduleChanges.edit(definition, changedBy);
    }

    /**
     * Pauses a stored schedule: the leader enqueues none of its slots from its next round (a slot whose
     * transaction started before the pause committed may still be enqueued). Pausing a paused one only
     * records who did it.
     *
     * @return the schedule as changed; empty if no schedule has this name
     * @throws IllegalStateException if the schedule is declared in code
     */
    public Optional<ScheduleInfo> pauseSchedule(String name, String changedBy) {
        return scheduleChanges.setPaused(name, true, changedBy);
    }

    /**
     * Resumes a paused stored schedule from its first slot after now: the slots that passed while it was
     * paused are not caught up.
     *
     * @return the schedule as changed; empty if no schedule has this name
     * @throws IllegalStateException if the schedule is declared in code
     */
    public Optional<ScheduleInfo> resumeSchedule(String name, String changedBy) {
        return scheduleChanges.setPaused(name, false, changedBy);
    }

    /**
     * Deletes a stored schedule with its slot and the record of its runs (the jobs it enqueued stay). Who
     * deleted it is logged, as there is no row left to record it in.
     *
     * @return false if no schedule has this name
     * @throws IllegalStateException if the schedule is declared in code: remove it from the code
     */
    public boolean deleteSchedule(String name, String changedBy) {
        return scheduleChanges.delete(name, changedBy);
    }

    /**
     * A schedule's last runs, newest first, at most {@code limit} (1 to {@value #MAX_SCHEDULE_RUNS}): the
     * job each slot enqueued and where that job is now.
     */
    public List<ScheduleRun> scheduleRuns(String name, int limit) {
        return scheduleChanges.runs(name, limit);
    }

    /** The longest {@code repairedBy}, in characters. */
    public static final int MAX_REPAIRED_BY = PayloadRepairs.MAX_REPAIRED_BY;
    /** The most dead jobs one {@link #repairDeadGroup} may change. */
    public static final int MAX_GROUP_REPAIR = PayloadRepairs.MAX_GROUP_REPAIR;

    /**
     * Replaces a dead job's payload before it is replayed (the job stays dead until replayed). The
     * payload must be JSON text that an enqueue would accept: within {@code maxPayloadBytes}, no field
     * name twice in one object, no NUL and no unpaired surrogate in its strings. The repair is recorded in
     * the job's metadata under {@code docket.repairs}, as {@code {"at", "by", "how"}} (the payload
     * itself is not), and stays with the job when it is replayed.
     *
     * <p>A payload encrypted at rest ({@link JobKind.Builder#encrypted}), or of a kind this Docket encrypts, is
     * stored encrypted again under the current key: the repair needs this Docket's {@link Docket.Builder#payloadKeys}.
     *
     * @param repairedBy who repairs it, for the record: 1 to {@value #MAX_REPAIRED_BY} printable characters
     * @return false if no dead job has this id (it may have been replayed meanwhile)
     * @throws IllegalArgumentException for a payload or a {@code repairedBy} that breaks these rules
     * @throws EncryptedPayloadException if the payload must be encrypted and this Docket has no payload keys
     *                                   (nothing changes)
     */
    public boolean repairDead(long id, String payload, String repairedBy) {
        return repairs.replace(id, payload, repairedBy);
    }

    /**
     * Applies a JSON merge patch (RFC 7386) to the payload of every dead job of one group: the patch
     * sets the fields it names, removes those it sets to {@code null} and merges nested objects. It
     * must be a JSON object (any other JSON value would replace every payload whole). Applying it twice
     * is the same as once. All or nothing: the jobs are changed in one transaction, locked as they are
     * read, and a payload the patch would make invalid (over {@code maxPayloadBytes}) fails the whole
     * repair, naming the job. Jobs the patch leaves unchanged are neither written nor recorded; the
     * others are recorded as for {@link #repairDead}. Replay them afterwards, by signature and at a rate
     * ({@link #startDeadJobReplay}).
     *
     * @param group      the group: {@code kind} and {@code signature} are required; {@code errorContains} and
     *                   {@code before} narrow it further; its page size is not used
     * @param mergePatch a JSON object
     * @param repairedBy who repairs them, as for {@link #repairDead}
     * @param max        the most jobs to look at, newest first, 1 to {@value #MAX_GROUP_REPAIR}
     * @param dryRun     true: change nothing, only say which jobs the patch would change
     * @throws EncryptedPayloadException if a payload of the group is encrypted at rest and this Docket has not its
     *                                   key (it is decrypted, patched and encrypted again under the current key
     *                                   where the keys are); nothing changes
     */
    public DeadJobRepair repairDeadGroup(DeadJobQuery group, String mergePatch, String repairedBy, int max,
                                         boolean dryRun) {
        return repairs.patch(group, mergePatch, repairedBy, max, dryRun);
    }

    /** The longest {@code by} of {@link #editJob} and {@link #runNow}, in characters. */
    public static final int MAX_EDITED_BY = 200;

    /**
     * Changes a job that has not started: its payload, run time, priority or queue, as {@code edit} says,
     * each checked by the rules of an enqueue (the payload as for {@link #repairDead}: JSON text within
     * {@code maxPayloadBytes}, no field name twice in one object, no NUL or unpaired surrogate). The edit is
     * one conditional statement on the job's state, so it is applied whole or not at all: a job that a worker
     * claims while the edit is being saved keeps its old values and the edit is refused
     * ({@link JobEditResult.Outcome#NOT_EDITABLE}); a job that the edit reached first runs with the new values.
     * A scheduled or ready job may be edited (one waiting out a retry's backoff too; its attempts and errors
     * are kept). A waiting job (for a signal, its dependencies or its sequence) may have its payload and
     * priority changed, but not its run time or queue, which its wait decides: such an edit is refused. A
     * job moved to a run time that has come is ready at once (its queue's workers woken). The unique key,
     * kind, tenant and attempts never change. Each applied edit is recorded in the job's metadata under
     * {@code docket.edits}, as {@code {"at", "by", "changed"}} ({@code changed}: the names of the fields
     * changed; never the payload), the last 20 kept, and stays with the job in the history and dead-letter table.
     *
     * A new payload for a job stored encrypted, or of a kind this Docket encrypts, is encrypted under the
     * current key before it is written.
     *
     * @param by who edits it, for the record: 1 to {@value #MAX_EDITED_BY} printable characters
     * @throws IllegalArgumentException for a payload or {@code by} that breaks these rules
     * @throws EncryptedPayloadException for a payload that must be encrypted where no keys are configured
     *                                   (nothing is changed)
     */
    public JobEditResult editJob(long id, JobEdit edit, String by) {
        Objects.requireNonNull(edit, "edit");
        checkBy(by);
        String payload = edit.payloadJson() == null ? null
                : storedForm(id, wiring.codec().toJson(PayloadJson.parse(edit.payloadJson(), "payload")));
        List<String> changed = new ArrayList<>(4);
        if (payload != null) {
            changed.add("payload");
        }
        if (edit.runAt() != null || edit.isRunNow()) {
            changed.add(edit.isRunNow() ? "runNow" : "runAt");
        }
        if (edit.priority() != null) {
            changed.add("priority");
        }
        if (edit.queue() != null) {
            changed.add("queue");
        }
        String changedJson = wiring.codec().toJson(changed);
        Long runAtMicros = edit.runAt() == null ? null
                : ChronoUnit.MICROS.between(Instant.EPOCH, edit.runAt());
        return call("editing job " + id, () -> {
            Optional<JobState> after = store.jobs().edit(id, payload, edit.priority(), edit.queue(), edit.isRunNow(),
                    runAtMicros, by, changedJson);
            if (after.isPresent()) {
                return new JobEditResult(id, JobEditResult.Outcome.EDITED, after.get(), null);
            }
            Optional<JobInfo> now = store.jobs().find(id);
            if (now.isEmpty()) {
                return new JobEditResult(id, JobEditResult.Outcome.NO_SUCH_JOB, null, null);
            }
            JobState state = now.get().state();
            String why = switch (state) {
                case RUNNING -> "job " + id + " has started (running attempt " + now.get().attempt()
                        + "): only a job that has not started can be edited; nothing was changed";
                case WAITING -> "job " + id + " is waiting (for a signal, its dependencies or its sequence), which "
                        + "decides when it runs: only its payload and priority can be edited; nothing was changed";
                case SCHEDULED, READY -> "job " + id + " changed while the edit was saved; nothing was changed, try again";
                default -> "job " + id + " has finished (" + state.name().toLowerCase(Locale.ROOT)
                        + "): only a job that has not started can be edited; nothing was changed";
            };
            return new JobEditResult(id, JobEditResult.Outcome.NOT_EDITABLE, state, why);
        });
    }

    /**
     * An edited payload as the job's row holds it: encrypted under the current key when the job's payload is
     * stored encrypted or its kind is one this Docket encrypts (the kind never changes, so reading it first is
     * safe); otherwise in clear, refused if it has the envelope's shape.
     *
     * @throws EncryptedPayloadException for a payload that must be encrypted where no keys are configured
     */
    private String storedForm(long id, String json) {
        Optional<JobInfo> job = call("reading job " + id, () -> store.jobs().find(id));
        if (job.isEmpty()) {
            return json;
        }
        String kind = job.get().kind();
        if (PayloadCrypto.isSealed(job.get().payload()) || wiring.kinds().encrypted(kind)) {
            return wiring.crypto().seal(json, PayloadCrypto.payloadContext(kind), "the edited payload of job " + id);
        }
        PayloadCrypto.refuseEnvelopeShape(json, "the edited payload of job " + id);
        return json;
    }

    /**
     * Makes a job that has not started due now, by the database's clock: {@link #editJob} with
     * {@link JobEdit#runNow()}, recorded the same way. A ready job keeps its place in its queue; a waiting
     * job is refused (its wait decides when it runs).
     */
    public JobEditResult runNow(long id, String by) {
        return editJob(id, JobEdit.runNow(), by);
    }

    private static void checkBy(String by) {
        if (by == null || by.isBlank() || by.length() > MAX_EDITED_BY || !TextRules.isName(by)) {
            throw new IllegalArgumentException("by must be 1 to " + MAX_EDITED_BY + " printable characters, was "
                    + TextRules.describe(by));
        }
    }

    /**
     * Puts dead jobs back to ready with a fresh attempt budget; their error history is kept. A dead
     * job whose unique key a live job holds now stays dead (replaying it would run it twice).
     *
     * @return the ids that were replayed (unknown ids and held unique keys are left out)
     */
    public List<Long> replayDead(Collection<Long> ids) {
        Objects.requireNonNull(ids, "ids");
        return call("replaying dead jobs", () -> store.deadJobs().replay(List.copyOf(ids)));
    }

    /**
     * Retries a job now: a dead job is replayed (see {@link #replayDead}); a scheduled one (in the
     * future, or waiting out a backoff) becomes ready at once.
     *
     * @return false if the job is neither dead nor scheduled
     */
    public boolean retry(long id) {
        return call("retrying job " + id, () -> !store.deadJobs().replay(List.of(id)).isEmpty() || store.jobs().runNow(id));
    }

    /**
     * Discards a dead job for good: deletes it from the dead-letter table (a job that halted its
     * sequence, {@link JobOptions.Builder#haltSequenceOnDeath}, lets the sequence's next job run).
     *
     * @return false if no dead job has this id
     */
    public boolean discardDead(long id) {
        return call("discarding dead job " + id, () -> store.deadJobs().discard(id));
    }

    /** The most jobs one replay may look at. */
    public static final int MAX_REPLAY = 1_000_000;
    /** The highest replay rate, jobs per second. */
    public static final double MAX_REPLAY_RATE = 100_000;

    /**
     * Starts replaying the dead jobs that match {@code filter} (its kind, error text, signature and {@code before};
     * its page size is not used), newest first, at no more than {@code ratePerSecond}, at most {@code max}
     * of them. The cluster's maintenance leader carries it out a turn per maintenance round, so a worker
     * with maintenance on must be running; its progress is kept in the database
     * ({@link #deadJobReplay(long)}), so it survives a restart of this node and a change of leader. Jobs that die
     * while it runs may be replayed by it too. A replay of nothing is {@link DeadJobReplay.State#DONE} at once.
     *
     * @param ratePerSecond more than 0 and at most {@link #MAX_REPLAY_RATE}; fractions are fine (0.5: one job every 2 s)
     * @param max           1 to {@link #MAX_REPLAY}
     */
    public DeadJobReplay startDeadJobReplay(DeadJobQuery filter, double ratePerSecond, int max) {
        Objects.requireNonNull(filter, "filter");
        if (!(ratePerSecond > 0 && ratePerSecond <= MAX_REPLAY_RATE)) {
            throw new IllegalArgumentException("ratePerSecond must be more than 0 and at most " + (long) MAX_REPLAY_RATE
                    + ", was " + ratePerSecond);
        }
        OptionChecks.between("max", max, 1, MAX_REPLAY);
        return call("starting a dead-letter replay", () -> {
            if (filter.signature() != null) {
                store.deadJobs().sign();
            }
            return store.deadJobReplays().start(DeadJobQueries.Filter.of(filter), ratePerSecond, max);
        });
    }

    /** A replay started with {@link #startDeadJobReplay}, as far as it has got; empty once pruned (7 days after it finished). */
    public Optional<DeadJobReplay> deadJobReplay(long id) {
        return call("reading dead-letter replay " + id, () -> store.deadJobReplays().find(id));
    }

    /** The replays still running and those finished in the last 7 days, newest first, at most 100. */
    public List<DeadJobReplay> deadJobReplays() {
        return call("listing dead-letter replays", () -> store.deadJobReplays().list(100));
    }

    /**
     * Whether a queue of this name is known: it has settings of its own (paused or capped), or any
     * job, live, finished (within the history's retention) or dead. Check it before
     * {@link #pauseQueue}, {@link #resumeQueue} or {@link #setQueueLimits}, which create a queue's
     * settings for any valid name, so that a typo does not go unnoticed (the REST API and the CLI
     * answer "not found" unless asked to create it). It reads the jobs and dead-letter tables, so it
     * is for operators' commands, not for a hot path.
     */
    public boolean knowsQueue(String queue) {
        JobOptionRules.checkQueue(queue);
        return call("looking up queue " + queue, () -> store.queues().known(queue));
    }

    /**
     * How many jobs of {@code queue} have not finished (scheduled, ready, running, or waiting), read
     * now from the jobs table, not from the gauges. 0 once a drained queue can be moved elsewhere.
     *
     * @throws IllegalArgumentException for a queue name {@link JobOptions#QUEUE_NAME} refuses
     */
    public long liveJobs(String queue) {
        JobOptionRules.checkQueue(queue);
        return call("counting the live jobs of queue " + queue, () -> store.jobs().countLive(queue));
    }

    /**
     * Pauses a queue on every worker of the cluster: it is not claimed from the next claim on;
     * jobs already running finish. Enqueueing into it still works. A queue without settings gets
     * them (see {@link #knowsQueue} to catch a misspelt name first).
     */
    public void pauseQueue(String queue) {
        JobOptionRules.checkQueue(queue);
        run("pausing queue " + queue, () -> store.queues().setPaused(queue, true));
    }

    /** Resumes a paused queue; idle workers are woken at once. */
    public void resumeQueue(String queue) {
        JobOptionRules.checkQueue(queue);
        run("resuming queue " + queue, () -> store.queues().setPaused(queue, false));
    }

    /**
     * Caps how many of a queue's jobs run at once across the cluster ({@code maxRunning}), and how many
     * of one tenant's ({@code tenantMaxRunning}); null removes a cap. Workers apply it within a second.
     * With a tenant cap, one tenant flooding the queue leaves the others' lag unchanged.
     */
    public void setQueueLimits(String queue, Integer maxRunning, Integer tenantMaxRunning) {
        JobOptionRules.checkQueue(queue);
        if (maxRunning != null && maxRunning < 0) {
            throw new IllegalArgumentException("maxRunning must be >= 0, was " + maxRunning);
        }
        if (tenantMaxRunning != null && tenantMaxRunning < 1) {
            throw new IllegalArgumentException("tenantMaxRunning must be >= 1, was " + tenantMaxRunning);
        }
        run("setting limits of queue " + queue, () -> store.queues().setLimits(queue, maxRunning, tenantMaxRunning));
    }

    /**
     * Whether a kind of this name is known: it has a rate limit, a live worker serves it, or it has a job,
     * live, finished (within the history's retention) or dead. For operators' commands, as {@link #knowsQueue}.
     */
    public boolean knowsKind(String kind) {
        JobOptionRules.checkKind(kind);
        return call("looking up kind " + kind, () -> store.rateLimits().knownKind(kind));
    }

    /** Every rate limit in force, kinds first, then queues, each by name (see {@link RateLimit}). */
    public List<RateLimitSettings> rateLimits() {
        return call("listing rate limits", store.rateLimits()::list);
    }

    /**
     * Sets a rate limit at run time, on a known kind or queue ({@link #knowsKind}, {@link #knowsQueue}): the
     * next claim applies it, and it stays in force over what nodes declare until {@link #removeRateLimit}.
     * Changing {@link RateLimit#perTenant()} starts the limit's windows afresh. A raised limit wakes the
     * workers it concerns.
     *
     * @throws IllegalArgumentException if no kind or queue of that name is known (a typo would otherwise
     *                                  limit nothing); {@link #setRateLimit(RateLimit, boolean)} creates it
     */
    public void setRateLimit(RateLimit limit) {
        setRateLimit(limit, false);
    }

    /** {@link #setRateLimit(RateLimit)}, for a kind or queue nobody has heard of yet too when {@code create}. */
    public void setRateLimit(RateLimit limit, boolean create) {
        Objects.requireNonNull(limit, "limit");
        String what = limit.scope().name().toLowerCase(Locale.ROOT);
        if (!create && !(limit.scope() == RateLimit.Scope.KIND ? knowsKind(limit.name()) : knowsQueue(limit.name()))) {
            throw new IllegalArgumentException("no " + what + " " + limit.name() + " is known (no limit, no jobs, no "
                    + "worker): refusing to limit it; create it explicitly if it is meant");
        }
        run("setting the rate limit of " + what + " " + limit.name(), () -> store.rateLimits().set(limit));
    }

    /**
     * Removes the rate limit on a kind or queue, declared or edited; a node that declares it writes it again
     * when its next worker starts. Returns false if there was none.
     */
    public boolean removeRateLimit(RateLimit.Scope scope, String name) {
        Objects.requireNonNull(scope, "scope");
        if (scope == RateLimit.Scope.KIND) {
            JobOptionRules.checkKind(name);
        } else {
            JobOptionRules.checkQueue(name);
        }
        return call("removing the rate limit of " + name, () -> store.rateLimits().remove(scope, name));
    }

    /** The queues that have settings of their own (paused, or capped); others have the defaults. */
    public List<QueueSettings> queues() {
        return call("listing queues", store.queues()::list);
    }

    /** Running jobs per queue and tenant, across the cluster: who is using a queue's capacity now. */
    public List<TenantRunning> runningByTenant() {
        return call("counting running jobs per tenant", store.stats()::runningByTenant);
    }

    /** Statistics per queue and kind, for the whole cluster; see {@link QueueStats}. */
    public List<QueueStats> stats() {
        return call("computing statistics", store.stats()::stats);
    }

    /**
     * The cluster's outcome counters per queue and kind (raw kinds, not metric labels), by queue then
     * kind; see {@link OutcomeTotals}. One read of two small tables: the totals the maintenance leader
     * folded, and the counts appended since its last round.
     */
    public List<OutcomeTotals> outcomeTotals() {
        return call("reading the outcome counters", store.jobCounts()::totals);
    }

    /**
     * Every registered worker, oldest first: live ones, and for an hour those whose heartbeats stopped
     * ({@link WorkerInfo#live()} false). A worker that stopped gracefully is gone at once.
     */
    public List<WorkerInfo> workers() {
        return call("listing workers", store.workers()::list);
    }

    /** Runs every check of {@link #doctor(DoctorOptions)} with {@link DoctorOptions#defaults()}. */
    public DoctorReport doctor() {
        return doctor(DoctorOptions.defaults());
    }

    /**
     * The runbook as checks: vacuum debt on the jobs table, who holds the xmin horizon back (long and
     * idle-in-transaction sessions, replication slots, prepared transactions, standbys), the jobs table's
     * storage settings against the migrations', each queue's lag against its SLO, each kind's pickup p99
     * against its SLO, dead-letter growth, paused queues with a backlog, waiting jobs no live worker
     * serves, history partitions missing or overdue, the maintenance leader, and the workers (stopped
     * heartbeats, pools too small, listeners down, stalled services). Each finding has a cause, evidence
     * and a fix; see {@link DoctorReport}. Read-only. The horizon checks read {@code pg_stat_activity}:
     * run it as a role with {@code pg_monitor}, or sessions of other roles stay invisible.
     */
    public DoctorReport doctor(DoctorOptions options) {
        Objects.requireNonNull(options, "options");
        return call("running doctor", () -> new Doctor(store, wiring.schema().name(), wiring.historyRetention()).run(options));
    }

    /**
     * Why the job is not running (or what it is doing), computed from the database now; see
     * {@link JobExplanation.Code} for every answer. Empty when no job has the id (or it was pruned).
     */
    public Optional<JobExplanation> explain(long id) {
        return call("explaining job " + id, () -> new JobExplainer(store).explain(id));
    }

    /** The longest SLO objective that may be set: 30 days. */
    public static final Duration MAX_SLO = Duration.ofDays(30);

    /**
     * Sets the lag objective of {@code queue} (how long its oldest ready job may wait), or clears it
     * with null. The queue need not exist yet. Doctor compares with it; the server exports it as
     * {@code docket_queue_lag_slo_seconds{queue}}.
     *
     * @param lag more than zero and at most {@link #MAX_SLO}, or null to clear
     */
    public void setQueueLagSlo(String queue, Duration lag) {
        JobOptionRules.checkQueue(queue);
        checkSlo("lag", lag);
        run("setting the lag SLO of queue " + queue, () -> store.slos().set(Slo.Target.QUEUE_LAG, queue, lag));
    }

    /**
     * Sets the pickup p99 objective of {@code kind} (due to claimed, first attempts), or clears it with
     * null. Doctor compares with it; the server exports it as {@code docket_kind_pickup_p99_slo_seconds{kind}}.
     *
     * @param p99 more than zero and at most {@link #MAX_SLO}, or null to clear
     */
    public void setKindPickupSlo(String kind, Duration p99) {
        JobOptionRules.checkKind(kind);
        checkSlo("pickup p99", p99);
        run("setting the pickup SLO of kind " + kind, () -> store.slos().set(Slo.Target.KIND_PICKUP_P99, kind, p99));
    }

    /** Every SLO set, queue lags first, then kinds' pickup p99, each by name. */
    public List<Slo> slos() {
        return call("listing SLOs", store.slos()::list);
    }

    private static void checkSlo(String what, Duration objective) {
        if (objective != null && (objective.isNegative() || objective.isZero() || objective.compareTo(MAX_SLO) > 0)) {
            throw new IllegalArgumentException(what + " SLO must be more than 0 and at most 30 days, was " + objective);
        }
    }
}
