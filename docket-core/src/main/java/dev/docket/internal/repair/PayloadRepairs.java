package dev.docket.internal.repair;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DeadJobQuery;
import dev.docket.DeadJobRepair;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.DeadJobQueries;
import dev.docket.internal.db.DeadJobRepairQueries;
import dev.docket.internal.json.MergePatch;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.json.PayloadJson;
import dev.docket.internal.rules.TextRules;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Repairs dead jobs' payloads before they are replayed ({@code DocketAdmin.repairDead} and
 * {@code repairDeadGroup}, whose Javadoc states the rules checked here). Every repaired payload passes
 * the rules of an enqueue (valid JSON text, the size limit) and each repair is recorded in the job's
 * metadata ({@code docket.repairs}: who, when, how).
 */
public record PayloadRepairs(Database store, PayloadCodec codec) {

    /** The longest {@code repairedBy}, in characters ({@code DocketAdmin.MAX_REPAIRED_BY}). */
    public static final int MAX_REPAIRED_BY = 200;
    /** The most dead jobs one group repair may change ({@code DocketAdmin.MAX_GROUP_REPAIR}). */
    public static final int MAX_GROUP_REPAIR = 10_000;

    /** How a repair is recorded: the payload given whole. */
    public static final String REPLACED = "payload replaced";
    /** How a repair is recorded: an RFC 7386 merge patch applied. */
    public static final String MERGE_PATCH = "merge patch";

    /** Replaces one dead job's payload; false if no dead job has this id. */
    public boolean replace(long id, String payload, String by) {
        checkRepairedBy(by);
        return Database.call("repairing dead job " + id, () -> {
            String json = codec.toJson(PayloadJson.parse(payload, "payload"));
            return store.deadJobRepairs().replace(id, json, by, REPLACED);
        });
    }

    /**
     * Applies a merge patch (a JSON object) to the payload of every dead job of {@code group} (a kind
     * and a signature), at most {@code max}, all or nothing: a payload the patch would push over the size
     * limit fails the whole repair, naming the job.
     */
    public DeadJobRepair patch(DeadJobQuery group, String mergePatch, String by, int max, boolean dryRun) {
        Objects.requireNonNull(group, "group");
        if (group.kind() == null || group.signature() == null) {
            throw new IllegalArgumentException("a group repair names its group: a kind and a signature (see deadJobGroups)");
        }
        checkRepairedBy(by);
        if (max < 1 || max > MAX_GROUP_REPAIR) {
            throw new IllegalArgumentException("max must be between 1 and " + MAX_GROUP_REPAIR + ", was " + max);
        }
        DeadJobRepairQueries.GroupResult result = Database.call("repairing dead jobs of kind " + group.kind(),
                () -> patch(DeadJobQueries.Filter.of(group), mergePatch, by, max, dryRun));
        return new DeadJobRepair(result.matched(), result.changed(), dryRun);
    }

    private DeadJobRepairQueries.GroupResult patch(DeadJobQueries.Filter group, String mergePatch, String by, int max,
                                                   boolean dryRun) throws SQLException {
        JsonNode patch = PayloadJson.parse(mergePatch, "mergePatch");
        if (!patch.isObject()) {
            throw new IllegalArgumentException("mergePatch must be a JSON object: a patch of any other type would "
                    + "replace every payload of the group whole");
        }
        store.deadJobs().sign();
        return store.deadJobRepairs().applyToGroup(group, max, (id, stored) -> {
            JsonNode before = PayloadJson.parse(stored, "the stored payload of job " + id);
            JsonNode after = MergePatch.apply(before, patch);
            if (after.equals(before)) {
                return null;
            }
            try {
                return codec.toJson(after);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("job " + id + ": the patched " + e.getMessage(), e);
            }
        }, by, MERGE_PATCH, !dryRun);
    }

    private static void checkRepairedBy(String repairedBy) {
        if (repairedBy == null || repairedBy.isBlank() || repairedBy.length() > MAX_REPAIRED_BY
                || !TextRules.isName(repairedBy)) {
            throw new IllegalArgumentException("repairedBy must be 1 to " + MAX_REPAIRED_BY + " printable characters, was "
                    + TextRules.describe(repairedBy));
        }
    }
}
