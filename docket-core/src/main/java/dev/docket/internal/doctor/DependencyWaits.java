package dev.docket.internal.doctor;

import dev.docket.JobExplanation.Code;
import dev.docket.JobExplanation.Reason;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.DependencyQueries.Pending;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Why a waiting job waits: the jobs it depends on that have not settled it yet. */
final class DependencyWaits {

    private static final int SHOWN = 10;

    private DependencyWaits() {
    }

    /** {@code delayMillis}: the job's timer after its dependencies, or null. */
    static List<Reason> reasons(Database store, long jobId, Long delayMillis) throws SQLException {
        int waitingFor = store.dependencies().waitingCount(jobId);
        List<Pending> pending = store.dependencies().waitingFor(jobId, SHOWN);
        String shown = pending.stream().map(p -> p.dependsOn() + " (" + describe(p) + ")")
                .collect(Collectors.joining(", "));
        String mode = pending.isEmpty() ? "" : pending.getFirst().mode();
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("waitingFor", Integer.toString(waitingFor));
        facts.put("dependencies", pending.stream().map(p -> Long.toString(p.dependsOn())).collect(Collectors.joining(",")));
        facts.put("mode", mode);
        String timer = "";
        if (delayMillis != null) {
            facts.put("delayAfterDependencies", Duration.ofMillis(delayMillis).toString());
            timer = " It runs " + Duration.ofMillis(delayMillis) + " after the last of them completes.";
        }
        return List.of(new Reason(Code.WAITING_FOR_DEPENDENCIES, "Waits for " + waitingFor
                + " job(s) it depends on" + (pending.isEmpty() ? "." : ": " + shown
                + (waitingFor > pending.size() ? ", ..." : "") + ".") + timer, facts));
    }

    private static String describe(Pending p) {
        return p.state().equals("dead") ? "dead: the job waits for its replay" : p.state();
    }
}
