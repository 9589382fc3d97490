package dev.docket.internal.doctor;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.JobExplanation.Code;
import dev.docket.JobExplanation.Reason;
import dev.docket.JobExplanation;
import dev.docket.JobInfo;
import dev.docket.JobState;
import dev.docket.RateLimit;
import dev.docket.RateLimitSettings;
import dev.docket.WorkerInfo;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.ExplainQueries.LiveJob;
import dev.docket.internal.db.ExplainQueries.QueueLoad;
import dev.docket.internal.db.ExplainQueries;
import dev.docket.internal.db.RateLimitQueries;
import dev.docket.internal.rules.VersionWaitNote;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * "Why is this job not running?" ({@link dev.docket.DocketAdmin#explain}), answered from the database:
 * the job's row, its queue's settings and running jobs, the backlog ahead of it in the claim's order,
 * the maintenance leader, and the registered workers. Each reason of {@link JobExplanation.Code} is
 * decided here and nowhere else.
 */
public final class JobExplainer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Database store;
    private final SequenceReasons sequences;

    public JobExplainer(Database store) {
        this.store = store;
        this.sequences = new SequenceReasons(store);
    }

    public Optional<JobExplanation> explain(long id) throws SQLException {
        Optional<LiveJob> live = store.explain().job(id);
        if (live.isEmpty()) {
            return store.jobs().find(id).map(JobExplainer::finished);
        }
        LiveJob job = live.get();
        List<WorkerInfo> workers = store.workers().list();
        List<Reason> reasons = switch (job.state()) {
            case "running" -> running(job, workers);
            case "scheduled" -> scheduled(job, workers);
            case "waiting" -> job.sequenceKey() != null ? sequences.of(job) : waiting(job);
            default -> ready(job, workers);
        };
        return Optional.of(new JobExplanation(job.id(), JobState.valueOf(job.state().toUpperCase(Locale.ROOT)),
                job.queue(), job.kind(), reasons));
    }

    private static JobExplanation finished(JobInfo job) {
        Map<String, String> facts = facts("finishedAt", job.finishedAt());
        if (job.deadReason() != null) {
            facts.put("reason", job.deadReason());
        }
        // The time belongs to the event, before any advice: "... at T (reason); retry it ...".
        String what = switch (job.state()) {
            case COMPLETED -> "it completed at " + job.finishedAt() + ".";
            case CANCELLED -> "it was cancelled at " + job.finishedAt() + ".";
            default -> "it moved to the dead-letter table at " + job.finishedAt() + " (" + job.deadReason()
                    + "); retry it to run it again.";
        };
        return new JobExplanation(job.id(), job.state(), job.queue(), job.kind(),
                List.of(new Reason(Code.FINISHED, "Not waiting: " + what, facts)));
    }

    /** A job waiting for a signal, for its dependencies, or both: each is a reason. */
    private List<Reason> waiting(LiveJob job) throws SQLException {
        List<Reason> reasons = new ArrayList<>();
        if (job.awaitSignal() != null) {
            Map<String, String> facts = facts("signal", job.awaitSignal(), "since", job.awaitSince(),
                    "deadline", job.awaitDeadline(), "onTimeout", job.awaitOnTimeout());
            String then = job.awaitDeadline() == null ? "It has no timeout."
                    : "Without it by " + job.awaitDeadline() + " it " + switch (job.awaitOnTimeout()) {
                        case "run" -> "runs anyway.";
                        case "fail" -> "fails (to the dead-letter table).";
                        default -> "is cancelled.";
                    };
            reasons.add(new Reason(Code.WAITING_FOR_SIGNAL, "Waits for the signal '" + job.awaitSignal() + "' since "
                    + job.awaitSince() + " (send it with docket job signal " + job.id() + " " + job.awaitSignal()
                    + "). " + then, facts));
        }
        if (job.waitingFor() > 0 || reasons.isEmpty()) {
            reasons.addAll(DependencyWaits.reasons(store, job.id(), job.dependencyDelayMillis()));
        }
        return reasons;
    }

    private List<Reason> running(LiveJob job, List<WorkerInfo> workers) {
        WorkerInfo worker = workers.stream().filter(w -> w.id().equals(job.lockedBy())).findFirst().orElse(null);
        boolean workerLive = worker != null && worker.live();
        Map<String, String> facts = facts("worker", job.lockedBy(), "since", job.attemptedAt(),
                "leaseUntil", job.leaseUntil(), "attempt", job.attempt());
        facts.put("workerLive", Boolean.toString(workerLive));
        List<Reason> reasons = new ArrayList<>();
        if (job.leaseUntil() != null && job.leaseUntil().isBefore(job.now())) {
            reasons.add(new Reason(Code.LEASE_EXPIRED, "Its lease ran out at " + job.leaseUntil() + " while worker "
                    + job.lockedBy() + " ran attempt " + job.attempt() + ": the maintenance leader's rescuer puts it "
                    + "back to ready (or into the dead-letter table when its attempts are used up).",
                    facts("leaseUntil", job.leaseUntil())));
        }
        reasons.add(new Reason(Code.RUNNING, "Running attempt " + job.attempt() + " of " + job.maxAttempts()
                + " on worker " + job.lockedBy() + (worker == null ? "" : " (" + worker.host() + ", pid " + worker.pid() + ")")
                + " since " + job.attemptedAt() + ", lease until " + job.leaseUntil()
                + (workerLive ? "." : "; that worker's heartbeats stopped, so it returns to the queue when the lease ends."),
                facts));
        return reasons;
    }

    private List<Reason> scheduled(LiveJob job, List<WorkerInfo> workers) throws SQLException {
        List<Reason> reasons = new ArrayList<>();
        String waitNote = VersionWaitNote.reason(job.metadata(), job.runAt());
        if (!job.runAt().isAfter(job.now())) {
            reasons.add(store.doctor().maintenance().leader() != null
                    ? new Reason(Code.DUE, "Due since " + job.runAt() + ": the maintenance leader makes it ready at its "
                    + "next round.", facts("runAt", job.runAt()))
                    : new Reason(Code.NO_MAINTENANCE_LEADER, "Due since " + job.runAt() + ", but no maintenance leader "
                    + "runs, so nothing makes it ready: start a worker with maintenance on.", facts("runAt", job.runAt())));
        } else if (waitNote != null) {
            reasons.add(new Reason(Code.WAITING_FOR_NEWER_VERSION, "A worker put it back to wait for one that reads its "
                    + "payload version " + job.payloadVersion() + " (" + waitNote + "); next look at " + job.runAt() + ".",
                    facts("payloadVersion", job.payloadVersion(), "runAt", job.runAt())));
        } else if (job.lastErrorAt() != null && job.attempt() > 0) {
            reasons.add(new Reason(Code.BACKING_OFF, "Backing off after failed attempt " + job.attempt() + " of "
                    + job.maxAttempts() + ": runs again at " + job.runAt() + ".",
                    facts("attempt", job.attempt(), "runAt", job.runAt())));
        } else if (job.debounceKey() != null) {
            reasons.add(debounced(job));
        } else {
            reasons.add(new Reason(Code.SCHEDULED, "Scheduled for " + job.runAt() + ".", facts("runAt", job.runAt())));
        }
        for (Reason blocker : blockers(job, workers, store.explain().queue(job.queue(), job.tenant()))) {
            if (blocker.code() != Code.WAITING_FOR_NEWER_VERSION || waitNote == null) {
                reasons.add(blocker);
            }
        }
        return reasons;
    }

    /** A debounced job not yet due: when it runs, and what another enqueue of its key would do. */
    private static Reason debounced(LiveJob job) {
        String enqueues = debounceEnqueues(job.metadata());
        Map<String, String> facts = facts("debounceKey", job.debounceKey(), "runAt", job.runAt(),
                "deadline", job.debounceDeadline(), "enqueues", enqueues);
        return new Reason(Code.DEBOUNCED, "Debounced on key '" + job.debounceKey() + "' (" + (enqueues == null ? "?" : enqueues)
                + " enqueues so far): runs at " + job.runAt() + " unless another enqueue of kind " + job.kind()
                + " with this key moves it on, and at the latest at " + job.debounceDeadline() + ".", facts);
    }

    /** How many enqueues a debounced job absorbed (its metadata's docket.debounce), or null if unreadable. */
    private static String debounceEnqueues(String metadataJson) {
        try {
            JsonNode count = JSON.readTree(metadataJson).path("docket.debounce").path("enqueues");
            return count.isIntegralNumber() ? count.asText() : null;
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return null;
        }
    }

    private List<Reason> ready(LiveJob job, List<WorkerInfo> workers) throws SQLException {
        QueueLoad load = store.explain().queue(job.queue(), job.tenant());
        List<Reason> reasons = blockers(job, workers, load);
        if (load.maxRunning() != null && load.running() >= load.maxRunning()) {
            reasons.add(new Reason(Code.QUEUE_AT_CAP, "Queue " + job.queue() + " runs " + load.running()
                    + " jobs, its cap: the next frees a slot.", facts("running", load.running(), "maxRunning", load.maxRunning())));
        }
        if (job.tenant() != null && load.tenantMaxRunning() != null && load.tenantRunning() >= load.tenantMaxRunning()) {
            Map<String, String> facts = facts("tenant", job.tenant(), "running", load.tenantRunning());
            facts.put("tenantMaxRunning", load.tenantMaxRunning().toString());
            reasons.add(new Reason(Code.TENANT_AT_CAP, "Tenant " + job.tenant() + " runs " + load.tenantRunning()
                    + " jobs in queue " + job.queue() + ", its cap.", facts));
        }
        reasons.addAll(rateLimited(job));
        if (!reasons.isEmpty()) {
            return reasons;
        }
        long ahead = store.explain().ahead(job);
        String aheadText = ahead >= ExplainQueries.AHEAD_BOUND ? "at least " + ahead : Long.toString(ahead);
        int slots = workers.stream().filter(w -> w.serves(job.queue(), job.kind()))
                .mapToInt(w -> w.queues().get(job.queue())).sum();
        if (load.running() >= slots) {
            Map<String, String> facts = facts("running", load.running(), "slots", slots);
            facts.put("ahead", Long.toString(ahead));
            reasons.add(new Reason(Code.SLOTS_BUSY, "All " + slots + " slots of the live workers serving queue "
                    + job.queue() + " are busy (" + load.running() + " running), with " + aheadText
                    + " ready jobs ahead of it.", facts));
        } else {
            reasons.add(new Reason(Code.READY, "Ready with free slots (" + load.running() + " of " + slots
                    + " busy): the next claim takes it, after " + aheadText + " jobs ahead of it.",
                    facts("ahead", ahead)));
        }
        return reasons;
    }

    /** The rate limits the job counts towards whose bucket has no permit left now. */
    private List<Reason> rateLimited(LiveJob job) throws SQLException {
        List<RateLimit> limits = store.rateLimits().list().stream().map(RateLimitSettings::limit)
                .filter(l -> l.name().equals(l.scope() == RateLimit.Scope.KIND ? job.kind() : job.queue())).toList();
        if (limits.isEmpty()) {
            return List.of();
        }
        List<Reason> reasons = new ArrayList<>();
        for (RateLimitQueries.Usage u : store.rateLimits().usage(limits)) {
            boolean tenant = u.limit().perTenant() && job.tenant() != null;
            if (u.remaining() > 0 || !u.bucket().equals(RateLimitQueries.bucket(u.limit(), job.tenant()))) {
                continue;
            }
            RateLimit l = u.limit();
            Map<String, String> facts = facts("scope", l.scope().name().toLowerCase(Locale.ROOT), "name", l.name(),
                    "permits", l.permits(), "period", l.period(), "used", u.used(), "nextPermitAt", u.nextAt());
            if (tenant) {
                facts.put("tenant", job.tenant());
            }
            reasons.add(new Reason(Code.RATE_LIMITED, "Rate limit on " + l.describe() + (tenant ? " (tenant " + job.tenant()
                    + ")" : "") + " has no permit left: " + u.used() + " started within the last " + l.period()
                    + "; the next permit frees at " + u.nextAt() + ".", facts));
        }
        return reasons;
    }

    /** What keeps a waiting job from running whenever it is due: its queue paused, no worker for it, an older worker. */
    private static List<Reason> blockers(LiveJob job, List<WorkerInfo> workers, QueueLoad load) {
        List<Reason> reasons = new ArrayList<>();
        if (load.paused()) {
            reasons.add(new Reason(Code.QUEUE_PAUSED, "Queue " + job.queue() + " is paused: nothing is claimed from it "
                    + "until it is resumed.", Map.of()));
        }
        List<WorkerInfo> onQueue = workers.stream().filter(w -> w.live() && w.queues().containsKey(job.queue())).toList();
        List<WorkerInfo> serving = onQueue.stream().filter(w -> w.kinds().containsKey(job.kind())).toList();
        if (onQueue.isEmpty()) {
            reasons.add(new Reason(Code.NO_WORKER_FOR_QUEUE, "No live worker serves queue " + job.queue() + ".", Map.of()));
        } else if (serving.isEmpty()) {
            reasons.add(new Reason(Code.KIND_NOT_SERVED, "Live workers serve queue " + job.queue() + " ("
                    + String.join(", ", onQueue.stream().map(WorkerInfo::id).toList()) + "), but none has a handler for "
                    + "kind " + job.kind() + ".", facts("workers", onQueue.size())));
        } else {
            int served = serving.stream().mapToInt(w -> w.kinds().get(job.kind())).max().orElseThrow();
            if (job.payloadVersion() > served) {
                reasons.add(new Reason(Code.WAITING_FOR_NEWER_VERSION, "Its payload version " + job.payloadVersion()
                        + " is newer than the live workers' handlers read (at most version " + served + "): it waits "
                        + "for a worker of the newer release.",
                        facts("payloadVersion", job.payloadVersion(), "servedVersion", served)));
            }
        }
        return reasons;
    }

    /** Facts from name, value pairs; null values are left out. */
    private static Map<String, String> facts(Object... pairs) {
        Map<String, String> facts = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i + 1] != null) {
                facts.put((String) pairs[i], pairs[i + 1].toString());
            }
        }
        return facts;
    }
}
