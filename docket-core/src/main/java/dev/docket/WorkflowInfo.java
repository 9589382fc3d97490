package dev.docket;

import java.time.Instant;
import java.util.List;

/**
 * A workflow as it is now ({@link DocketAdmin#workflow}): its steps in dependency order, each with its
 * job's state.
 *
 * @param status RUNNING while any step is live (waiting, scheduled, ready or running, including steps that
 *               wait for the replay of a dead one); otherwise FAILED if a step died, CANCELLED if a step
 *               was cancelled, else COMPLETED
 */
public record WorkflowInfo(long id, String name, Instant createdAt, Status status, List<Step> steps) {

    public WorkflowInfo {
        steps = List.copyOf(steps);
    }

    /** Where a workflow is as a whole. */
    public enum Status {
        RUNNING, COMPLETED, FAILED, CANCELLED
    }

    /**
     * One step.
     *
     * @param jobId the job that runs it now (a retry of a cancelled step enqueues a new job)
     * @param state its job's state; {@code null} when the job is in no table any more (its history or
     *              dead-letter retention ran out, or history retention is 0 and it completed)
     * @param after the names of the steps it waits for
     */
    public record Step(String name, long jobId, String kind, JobState state, List<String> after) {
        public Step {
            after = List.copyOf(after);
        }
    }

    /** The status a workflow with these step states has. */
    static Status statusOf(List<Step> steps) {
        boolean dead = false;
        boolean cancelled = false;
        for (Step s : steps) {
            if (s.state() != null && s.state().isLive()) {
                return Status.RUNNING;
            }
            dead |= s.state() == JobState.DEAD;
            cancelled |= s.state() == JobState.CANCELLED;
        }
        return dead ? Status.FAILED : cancelled ? Status.CANCELLED : Status.COMPLETED;
    }
}
