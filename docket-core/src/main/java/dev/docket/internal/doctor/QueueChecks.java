package dev.docket.internal.doctor;

import dev.docket.internal.db.DoctorQueries;
import dev.docket.internal.db.DoctorQueries.DeadGrowth;
import dev.docket.internal.db.DoctorQueries.Pickup;
import dev.docket.internal.db.DoctorQueries.Queue;
import dev.docket.internal.db.DoctorQueries.Unserved;
import java.sql.SQLException;

/**
 * Queue health: lag against its objective, pickup p99 against its objective, dead-letter growth,
 * paused queues with a backlog, and waiting jobs that no live worker serves.
 */
final class QueueChecks {

    private final DoctorQueries queries;

    QueueChecks(DoctorQueries queries) {
        this.queries = queries;
    }

    void lagAndPauses(Findings findings) throws SQLException {
        for (Queue q : queries.queues()) {
            double lag = q.lagSeconds() == null ? 0 : Math.max(0, q.lagSeconds());
            String evidence = "lag " + Findings.duration(lag) + " (" + Findings.count(q.ready()) + " ready, "
                    + Findings.count(q.running()) + " running" + (q.maxRunning() == null ? "" : ", cap " + q.maxRunning())
                    + ")" + (q.lagSloSeconds() == null ? "" : "; SLO " + Findings.duration(q.lagSloSeconds()));
            if (q.paused() && q.ready() > 0) {
                findings.warning("paused_backlog", "queue " + q.name(), "the queue is paused with jobs waiting in it",
                        evidence, "docket queue resume " + q.name() + " (if the pause is over)");
            }
            if (q.lagSloSeconds() != null && lag > q.lagSloSeconds()) {
                findings.problem("queue_lag", "queue " + q.name(), "the queue's oldest ready job has waited longer "
                                + "than its lag SLO", evidence,
                        q.paused() ? "the queue is paused: docket queue resume " + q.name()
                                : "add workers or concurrency for the queue, or lift its cap; `docket job explain ID` on "
                                + "its oldest ready job says what holds it");
            } else if (q.lagSloSeconds() != null || q.ready() > 0) {
                findings.ok("queue_lag", "queue " + q.name(), q.lagSloSeconds() == null ? "no lag SLO is set for the queue"
                        : "the queue's lag is within its SLO", evidence);
            }
        }
    }

    void pickup(Findings findings) throws SQLException {
        for (Pickup p : queries.pickup()) {
            String subject = "kind " + p.kind();
            String slo = "SLO " + Findings.duration(p.sloSeconds());
            if (p.p99Seconds() == null) {
                findings.ok("pickup_p99", subject, "no first attempt completed in the last 5 minutes", slo);
                continue;
            }
            String evidence = "pickup p99 " + Findings.duration(p.p99Seconds()) + " over "
                    + Findings.count(p.jobs(), "first attempt") + " in the last 5 minutes; " + slo;
            if (p.p99Seconds() > p.sloSeconds()) {
                findings.problem("pickup_p99", subject, "jobs of the kind wait longer than their pickup SLO "
                                + "between due and claimed", evidence,
                        "add workers or concurrency on the kind's queue; if the queue is shared with slow kinds, give "
                                + "this kind a queue of its own");
            } else {
                findings.ok("pickup_p99", subject, "the kind's pickup p99 is within its SLO", evidence);
            }
        }
    }

    void deadGrowth(Findings findings) throws SQLException {
        boolean any = false;
        for (DeadGrowth d : queries.deadGrowth()) {
            any = true;
            findings.warning("dead_letter_growth", "kind " + d.kind() + " on queue " + d.queue(),
                    "jobs of the kind reached the dead-letter table in the last 24 hours",
                    Findings.count(d.lastDay()) + " died in the last 24 h, " + Findings.count(d.dayBefore())
                            + " the 24 h before",
                    "docket dlq groups --kind '" + d.kind() + "' shows their errors by signature; fix the cause (docket "
                            + "dlq patch repairs payloads), then replay them at a rate: docket dlq replay --kind '"
                            + d.kind() + "' --rate 10");
        }
        if (!any) {
            findings.ok("dead_letter_growth", "dead letters", "no job died in the last 24 hours", "0 dead in 24 h");
        }
    }

    void unserved(Findings findings, int liveWorkers) throws SQLException {
        boolean any = false;
        for (Unserved u : queries.unserved()) {
            any = true;
            String cause = liveWorkers == 0 ? "no live worker at all: nothing runs the queue's jobs"
                    : u.queueServed() ? "live workers serve the queue but none has a handler for the kind: its jobs "
                    + "wait (and a worker that claims one fails it with \"no handler\")"
                    : "no live worker serves the queue";
            String evidence = Findings.count(u.ready()) + " ready and " + Findings.count(u.scheduled())
                    + " scheduled jobs of kind " + u.kind() + " on queue " + u.queue()
                    + (u.running() == 0 ? "" : ", " + Findings.count(u.running(), "job") + " claimed by workers without "
                    + "a handler for it");
            String fix = "start a worker serving queue " + u.queue() + " with a handler for kind " + u.kind()
                    + " (docket worker --queue " + u.queue() + "=N with a HandlerProvider for it), or cancel the jobs "
                    + "if the kind is a typo";
            if (u.ready() > 0 || u.running() > 0 || u.queueServed()) {
                findings.problem("unserved_kinds", "kind " + u.kind() + " on queue " + u.queue(), cause, evidence, fix);
            } else {
                findings.warning("unserved_kinds", "kind " + u.kind() + " on queue " + u.queue(),
                        cause + " (its jobs are not due yet)", evidence, fix);
            }
        }
        if (!any) {
            findings.ok("unserved_kinds", "kinds", "every waiting job's queue and kind has a live worker", "");
        }
    }
}
