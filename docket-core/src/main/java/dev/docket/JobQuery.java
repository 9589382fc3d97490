package dev.docket;

import dev.docket.internal.rules.JobOptionRules;

/**
 * A filter and a keyset page for {@link DocketAdmin#jobs(JobQuery)}: newest id first; pass the
 * last id of a page as {@code before} to get the next. Every filter is optional ({@code null}).
 *
 * @param state  only jobs in this state
 * @param queue  only jobs of this queue
 * @param kind   only jobs of this kind
 * @param before only ids below this one ({@code null}: from the newest)
 * @param limit  page size, 1 to 1000 (default 50)
 */
public record JobQuery(JobState state, String queue, String kind, Long before, int limit) {

    public JobQuery {
        OptionChecks.between("limit", limit, 1, 1000);
        if (queue != null) {
            JobOptionRules.checkQueue(queue);
        }
        if (kind != null) {
            JobOptionRules.checkKind(kind);
        }
    }

    /** All jobs, newest first, 50 a page. */
    public static JobQuery all() {
        return new JobQuery(null, null, null, null, 50);
    }

    public JobQuery withState(JobState state) {
        return new JobQuery(state, queue, kind, before, limit);
    }

    public JobQuery withQueue(String queue) {
        return new JobQuery(state, queue, kind, before, limit);
    }

    public JobQuery withKind(String kind) {
        return new JobQuery(state, queue, kind, before, limit);
    }

    public JobQuery withBefore(Long before) {
        return new JobQuery(state, queue, kind, before, limit);
    }

    public JobQuery withLimit(int limit) {
        return new JobQuery(state, queue, kind, before, limit);
    }
}
