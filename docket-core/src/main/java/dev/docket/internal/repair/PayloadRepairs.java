package dev.docket.internal.repair;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.DeadJobQuery;
import dev.docket.DeadJobRepair;
import dev.docket.JobInfo;
import dev.docket.JobState;
import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.DeadJobQueries;
import dev.docket.internal.db.DeadJobRepairQueries;
import dev.docket.internal.json.MergePatch;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.json.PayloadJson;
import dev.docket.internal.rules.TextRules;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Repairs dead jobs' payloads before they are replayed ({@code DocketAdmin.repairDead} and
 * {@code repairDeadGroup}, whose Javadoc states the rules checked here). Every repaired payload passes
 * the rules of an enqueue (valid JSON text, the size limit) and each repair is recorded in the job's
 * metadata ({@code docket.repairs}: who, when, how). A payload stored encrypted (or of a kind this Docket
 * encrypts) is repaired only where the keys are: it is decrypted, changed and encrypted again under the current
 * key; without keys the repair is refused and nothing changes.
 *
 * @param encryptedKind whether this Docket encrypts a kind of that name
 */
public record PayloadRepairs(Database store, PayloadCodec codec, PayloadCrypto crypto, Predicate<String> encryptedKind) {

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
            Optional<JobInfo> dead = store.jobs().find(id).filter(j -> j.state() == JobState.DEAD);
            if (dead.isEmpty()) {
                return false;
            }
            String kind = dead.get().kind();
            if (PayloadCrypto.isSealed(dead.get().payload()) || encryptedKind.test(kind)) {
                json = crypto.seal(json, PayloadCrypto.payloadContext(kind), "the repaired payload of dead job " + id);
            } else {
                PayloadCrypto.refuseEnvelopeShape(json, "payload");
            }
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
        String kind = group.kind();
        boolean kindEncrypted = encryptedKind.test(kind);
        return store.deadJobRepairs().applyToGroup(group, max, (id, stored) -> {
            boolean sealed = PayloadCrypto.isSealed(stored);
            String clear = sealed ? crypto.open(stored, PayloadCrypto.payloadContext(kind), "the payload of dead job "
                    + id + " (a merge patch of encrypted payloads needs their keys)") : stored;
            JsonNode before = PayloadJson.parse(clear, "the stored payload of job " + id);
            JsonNode after = MergePatch.apply(before, patch);
            if (after.equals(before)) {
                return null;
            }
            String json;
            try {
                json = codec.toJson(after);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("job " + id + ": the patched " + e.getMessage(), e);
            }
            if (sealed || kindEncrypted) {
                return crypto.seal(json, PayloadCrypto.payloadContext(kind), "the patched payload of dead job " + id);
            }
            PayloadCrypto.refuseEnvelopeShape(json, "job " + id + ": the patched payload");
            return json;
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
