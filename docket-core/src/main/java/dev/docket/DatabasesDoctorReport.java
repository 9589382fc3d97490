package dev.docket;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The doctor over several databases ({@link DocketRouter#doctor()}): each database's own report, and
 * the findings of the two checks that span databases.
 *
 * <ul>
 *   <li>{@code queue_in_two_databases} (a problem): a queue has unfinished jobs in more than one
 *       database, so its order, caps, unique keys and sequences hold in neither; the subject is the
 *       queue, the evidence each database's count.</li>
 *   <li>{@code handler_in_other_database} (a problem): a kind has unfinished jobs in one database and
 *       a handler only on live workers of another, so nothing runs them: a misrouted enqueue or a
 *       worker declared on the wrong database.</li>
 * </ul>
 *
 * @param byDatabase     each database's report, by name in the order given
 * @param acrossDatabases the findings of the checks that span databases (an OK finding per check when it passed)
 */
public record DatabasesDoctorReport(Map<String, DoctorReport> byDatabase, List<DoctorReport.Finding> acrossDatabases) {

    public DatabasesDoctorReport {
        byDatabase = Collections.unmodifiableMap(new LinkedHashMap<>(byDatabase));
        acrossDatabases = List.copyOf(acrossDatabases);
    }

    /** Every finding, each with the database it is about ({@code null} for the checks across databases). */
    public List<Map.Entry<String, DoctorReport.Finding>> findings() {
        List<Map.Entry<String, DoctorReport.Finding>> all = new ArrayList<>();
        acrossDatabases.forEach(f -> all.add(new java.util.AbstractMap.SimpleImmutableEntry<>(null, f)));
        byDatabase.forEach((db, r) -> r.findings().forEach(f -> all.add(Map.entry(db, f))));
        return all;
    }

    /** The worst severity of any finding. */
    public DoctorReport.Severity status() {
        return findings().stream().map(e -> e.getValue().severity()).max(Enum::compareTo)
                .orElse(DoctorReport.Severity.OK);
    }

    /** The exit status {@code docket doctor} ends with: 0 healthy, 1 warnings, 2 problems. */
    public int exitCode() {
        return status().ordinal();
    }
}
