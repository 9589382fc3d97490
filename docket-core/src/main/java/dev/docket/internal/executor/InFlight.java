package dev.docket.internal.executor;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Fence;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/** The jobs this worker holds, from claim until their outcome is written. */
public final class InFlight {

    private final ConcurrentHashMap<Long, RunningJob> jobs = new ConcurrentHashMap<>();

    public RunningJob add(ClaimedJob job) {
        RunningJob running = new RunningJob(job);
        jobs.put(job.id(), running);
        return running;
    }

    /** Forgets a job once its outcome is written or discarded; a newer claim of the same id stays. */
    public void remove(RunningJob running) {
        jobs.remove(running.job().id(), running);
    }

    public RunningJob get(Fence fence) {
        RunningJob r = jobs.get(fence.id());
        return r != null && r.fence().equals(fence) ? r : null;
    }

    public List<RunningJob> all() {
        return List.copyOf(jobs.values());
    }

    public List<Fence> fences() {
        return jobs.values().stream().map(RunningJob::fence).toList();
    }

    public int size() {
        return jobs.size();
    }

    public boolean isEmpty() {
        return jobs.isEmpty();
    }
}
