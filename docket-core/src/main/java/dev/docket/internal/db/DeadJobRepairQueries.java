package dev.docket.internal.db;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Repairs of dead jobs' payloads before they are replayed: one job's payload replaced, or a change
 * applied to every job of a group. Each repair is recorded in the job's metadata under
 * {@code docket.repairs} (who, when, how; never the payload itself).
 */
public record DeadJobRepairQueries(Jdbc jdbc, Statements sql) {

    /** How a group repair changes one payload: the new payload's JSON text, or null to leave it as it is. */
    @FunctionalInterface
    public interface Change {
        String apply(long id, String payload);
    }

    /** What a group repair found and changed. */
    public record GroupResult(int matched, List<Long> changed) {
    }

    private static final int PAGE = 100;

    /** Replaces one dead job's payload (JSON text); false if no dead job has this id. */
    public boolean replace(long id, String payload, String by, String how) throws SQLException {
        return jdbc.update(sql.get("deadJobRepairMany"), p -> p.text(by).text(how)
                .array("bigint", List.of(id)).array("text", List.of(payload))) == 1;
    }

    /**
     * Applies {@code change} to at most {@code max} dead jobs that match {@code filter}, newest first,
     * in one transaction: the jobs are locked as they are read, so none is replayed half-way, and if
     * {@code change} throws for one job nothing is changed at all. With {@code write} false it only
     * counts (a dry run).
     */
    public GroupResult applyToGroup(DeadJobQueries.Filter filter, int max, Change change, String by, String how,
                                    boolean write) throws SQLException {
        return jdbc.transaction(c -> {
            int matched = 0;
            List<Long> changed = new ArrayList<>();
            DeadJobQueries.Filter page = filter;
            while (matched < max) {
                int limit = Math.min(PAGE, max - matched);
                DeadJobQueries.Filter current = page;
                List<Map.Entry<Long, String>> rows = Jdbc.list(c, sql.get("deadJobPayloadsForRepair"),
                        p -> current.bind(p).int4(limit), rs -> Map.entry(rs.getLong("id"), rs.getString("payload")));
                List<Long> ids = new ArrayList<>();
                List<String> payloads = new ArrayList<>();
                for (Map.Entry<Long, String> row : rows) {
                    String repaired = change.apply(row.getKey(), row.getValue());
                    if (repaired != null) {
                        ids.add(row.getKey());
                        payloads.add(repaired);
                    }
                }
                if (write && !ids.isEmpty()) {
                    Jdbc.update(c, sql.get("deadJobRepairMany"), p -> p.text(by).text(how).array("bigint", ids)
                            .array("text", payloads));
                }
                changed.addAll(ids);
                matched += rows.size();
                if (rows.size() < limit) {
                    break;
                }
                page = new DeadJobQueries.Filter(filter.kind(), filter.errorContains(), filter.signature(),
                        rows.getLast().getKey());
            }
            return new GroupResult(matched, changed);
        });
    }
}
