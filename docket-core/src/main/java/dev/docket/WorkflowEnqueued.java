package dev.docket;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link Docket#enqueueWorkflow} enqueued: the workflow's id (for {@link DocketAdmin#workflow}) and
 * each step's job by step name, in the order the steps were declared. A step whose unique key a live job
 * held is that job ({@link Enqueued#inserted()} false).
 */
public record WorkflowEnqueued(long id, Map<String, Enqueued> steps) {

    public WorkflowEnqueued {
        steps = Collections.unmodifiableMap(new LinkedHashMap<>(steps));
    }
}
