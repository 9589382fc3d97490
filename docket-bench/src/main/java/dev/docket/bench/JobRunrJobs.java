package dev.docket.bench;


/** The JobRunr job: a public static no-op that reports its start (JobRunr calls it by reflection). */
public final class JobRunrJobs {
    static volatile Sut.Starts onStart = Sut.Starts.NONE;

    private JobRunrJobs() {
    }

    public static void noop(long seq) {
        onStart.started(seq, System.nanoTime());
    }
}
