package dev.docket;

import java.util.List;

/**
 * What {@link DocketAdmin#repairDeadGroup} did to a group of dead jobs.
 *
 * @param matched how many dead jobs of the group it looked at (at most its {@code max})
 * @param changed the ids whose payload the patch changed (or would change, in a dry run), newest
 *                first; a job the patch leaves as it was is not changed and not recorded
 * @param dryRun  whether this was a dry run, which changed nothing
 */
public record DeadJobRepair(int matched, List<Long> changed, boolean dryRun) {

    public DeadJobRepair {
        changed = List.copyOf(changed);
    }
}
