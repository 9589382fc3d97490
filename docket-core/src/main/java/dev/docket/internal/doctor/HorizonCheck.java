package dev.docket.internal.doctor;

import dev.docket.DoctorOptions;
import dev.docket.DoctorReport.Severity;
import dev.docket.internal.db.DoctorQueries;
import dev.docket.internal.db.DoctorQueries.Prepared;
import dev.docket.internal.db.DoctorQueries.Session;
import dev.docket.internal.db.DoctorQueries.Slot;
import dev.docket.internal.db.DoctorQueries.Standby;
import java.sql.SQLException;

/**
 * Who holds the xmin horizon back: a long transaction, a session idle in transaction, a replication
 * slot, a prepared transaction or a standby's feedback. While it is held, no vacuum can remove the
 * jobs table's dead rows, and every claim walks over more of them.
 */
final class HorizonCheck {

    static final String CHECK = "xmin_horizon";

    private final DoctorQueries queries;
    private final DoctorOptions options;

    HorizonCheck(DoctorQueries queries, DoctorOptions options) {
        this.queries = queries;
        this.options = options;
    }

    void run(Findings findings) throws SQLException {
        int held = 0;
        double threshold = options.longTransaction().toMillis() / 1000.0;
        for (Session s : queries.sessions(options.longTransaction())) {
            held++;
            boolean idle = s.state() != null && s.state().startsWith("idle in transaction");
            Severity severity = idle || s.transactionSeconds() > 10 * threshold ? Severity.PROBLEM : Severity.WARNING;
            findings.add(severity, CHECK, "pid " + s.pid(),
                    (idle ? "a session idle in transaction" : "a long transaction") + " holds the xmin horizon back: "
                            + "vacuum cannot remove rows that died after it began",
                    "pid " + s.pid() + ", user " + s.user() + ", application '" + nullToDash(s.application())
                            + "', client " + nullToDash(s.clientAddr()) + ", state " + nullToDash(s.state())
                            + ", transaction open " + Findings.duration(s.transactionSeconds())
                            + (idle ? " (idle for " + Findings.duration(s.stateSeconds()) + ")" : "")
                            + ", " + Findings.count(s.xidAge(), "transaction") + " behind",
                    "end it: SELECT pg_terminate_backend(" + s.pid() + "); then find why '" + nullToDash(s.application())
                            + "' leaves transactions open, and set idle_in_transaction_session_timeout "
                            + "(and transaction_timeout on PostgreSQL 17+) for its role");
        }
        for (Slot slot : queries.slots()) {
            if (slot.active() && slot.xidAge() <= options.xidAge()) {
                continue;
            }
            held++;
            findings.add(slot.active() ? Severity.WARNING : Severity.PROBLEM, CHECK, "slot " + slot.name(),
                    (slot.active() ? "an active" : "an inactive") + " replication slot holds the xmin horizon back",
                    slot.type() + " slot '" + slot.name() + "'" + (slot.database() == null ? "" : " on " + slot.database())
                            + ", " + (slot.active() ? "used by pid " + slot.activePid() : "no consumer connected")
                            + ", " + Findings.count(slot.xidAge(), "transaction") + " behind",
                    slot.active() ? "find out why its consumer lags (a stuck subscriber or CDC connector)"
                            : "if its consumer is gone for good: SELECT pg_drop_replication_slot("
                            + Findings.literal(slot.name()) + ");");
        }
        for (Prepared p : queries.prepared(options.longTransaction())) {
            held++;
            findings.problem(CHECK, "prepared " + p.gid(), "a forgotten prepared transaction holds the xmin horizon "
                            + "back (and its locks) until it is committed or rolled back",
                    "gid '" + p.gid() + "', owner " + p.owner() + ", database " + p.database() + ", prepared "
                            + Findings.duration(p.seconds()) + " ago, " + Findings.count(p.xidAge(), "transaction") + " behind",
                    "ask its transaction manager, then: ROLLBACK PREPARED " + Findings.literal(p.gid())
                            + "; (or COMMIT PREPARED " + Findings.literal(p.gid()) + ";) in database " + p.database());
        }
        for (Standby s : queries.standbys()) {
            if (s.xidAge() <= options.xidAge()) {
                continue;
            }
            held++;
            findings.warning(CHECK, "standby " + nullToDash(s.application()),
                    "a standby's hot_standby_feedback holds the primary's xmin horizon back for a long query on it",
                    "walsender pid " + s.pid() + ", standby '" + nullToDash(s.application()) + "' at "
                            + nullToDash(s.clientAddr()) + ", " + Findings.count(s.xidAge(), "transaction") + " behind",
                    "end the long query on that standby (pg_stat_activity there), or turn hot_standby_feedback off "
                            + "on it and accept query cancellations (max_standby_streaming_delay)");
        }
        if (held == 0) {
            findings.ok(CHECK, "database", "nothing holds the xmin horizon back longer than "
                    + Findings.duration(threshold), "no long transaction, prepared transaction, lagging slot or standby");
        }
    }

    private static String nullToDash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }
}
