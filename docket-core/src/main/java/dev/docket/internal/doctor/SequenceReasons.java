package dev.docket.internal.doctor;

import dev.docket.JobExplanation.Code;
import dev.docket.JobExplanation.Reason;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.ExplainQueries.LiveJob;
import dev.docket.internal.db.SequenceQueries.Blocker;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Why a job of a sequence ({@code JobOptions.sequenceKey}) waits: the head ahead of it, or a dead job that halts the key. */
final class SequenceReasons {

    private final Database store;

    SequenceReasons(Database store) {
        this.store = store;
    }

    /** The reasons of a waiting job that has a sequence key. */
    List<Reason> of(LiveJob job) throws SQLException {
        String key = job.sequenceKey();
        Blocker blocker = store.sequences().blocker(key, job.id());
        if (blocker.haltedBy() != null && blocker.head() == null) {
            Map<String, String> facts = new LinkedHashMap<>();
            facts.put("sequenceKey", key);
            facts.put("deadJobId", blocker.haltedBy().toString());
            return List.of(new Reason(Code.SEQUENCE_HALTED, "Sequence " + key + " is halted by dead job "
                    + blocker.haltedBy() + ": retry that job (it runs first) or discard it (then the next job runs).",
                    facts));
        }
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("sequenceKey", key);
        if (blocker.head() != null) {
            facts.put("headJobId", blocker.head().toString());
        }
        facts.put("waitingAhead", Long.toString(blocker.waitingAhead()));
        String behind = blocker.waitingAhead() == 0 ? "" : ", and behind " + blocker.waitingAhead() + " waiting jobs";
        String head = blocker.head() == null ? "the job" : "job " + blocker.head();
        return List.of(new Reason(Code.SEQUENCE_WAITING, "Waiting for " + head + " ahead in sequence " + key
                + behind + ": jobs of a sequence run one at a time, in enqueue order.", facts));
    }
}
