package dev.docket.internal.executor;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Fence;

/** A claimed job this worker holds until its outcome is written: what the heartbeater extends. */
public final class RunningJob {

    private final ClaimedJob job;
    private volatile Thread thread;
    private volatile boolean started;
    private volatile boolean lost;
    private volatile boolean releasing;
    private volatile boolean timedOut;
    private volatile boolean committed;
    private volatile Runnable onLost;

    RunningJob(ClaimedJob job) {
        this.job = job;
    }

    public ClaimedJob job() {
        return job;
    }

    public Fence fence() {
        return job.fence();
    }

    /** The lease was lost (rescued elsewhere or cancelled): stop the handler and discard its outcome. */
    public void markLost() {
        lost = true;
        interrupt();
        Runnable then = onLost;
        if (then != null) {
            then.run();
        }
    }

    /** Runs {@code then} when the lease is lost: how a job claimed ahead leaves its buffer without running. */
    public void onLost(Runnable then) {
        onLost = then;
        if (lost) {
            then.run();
        }
    }

    public boolean isLost() {
        return lost;
    }

    /** A transactional handler's commit found the lease lost: its transaction rolled back, nothing is left to write. */
    void fencedOut() {
        lost = true;
    }

    /** A transactional handler's outcome was written in its transaction. */
    void committed() {
        committed = true;
    }

    /** Whether the outcome is written already, in a transactional handler's transaction. */
    public boolean isCommitted() {
        return committed;
    }

    /** Shutdown gave up waiting: stop the handler and give the job back instead of failing it. */
    public void release() {
        releasing = true;
        interrupt();
    }

    public boolean isReleasing() {
        return releasing;
    }

    /** The attempt ran past its kind's timeout: stop the handler and fail the attempt. */
    void timeOut() {
        timedOut = true;
        interrupt();
    }

    boolean isTimedOut() {
        return timedOut;
    }

    void attach(Thread t) {
        started = true;
        thread = t;
    }

    void detach() {
        thread = null;
    }

    public boolean isHandlerRunning() {
        return thread != null;
    }

    /** Held ahead of a free slot: claimed, its handler not started yet. */
    public boolean isWaitingToStart() {
        return !started;
    }

    private void interrupt() {
        Thread t = thread;
        if (t != null) {
            t.interrupt();
        }
    }
}
