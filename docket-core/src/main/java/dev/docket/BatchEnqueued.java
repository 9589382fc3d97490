package dev.docket;

import java.util.List;

/**
 * What {@link Docket#enqueueBatch} enqueued: the batch's jobs in the order given (a job whose unique key
 * a live job held is that job, {@link Enqueued#inserted()} false), and each callback's job id, or null
 * where the batch has none.
 */
public record BatchEnqueued(List<Enqueued> jobs, Long onAllFinished, Long onAllSucceeded, Long onAnyDied) {

    public BatchEnqueued {
        jobs = List.copyOf(jobs);
    }
}
