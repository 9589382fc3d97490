package dev.docket.bench;

import java.util.function.LongConsumer;

/** The JobRunr job: a public static no-op that reports its start (JobRunr calls it by reflection). */
public final class JobRunrJobs {
    static volatile LongConsumer onStart = seq -> {
    };

    private JobRunrJobs() {
    }

    public static void noop(long seq) {
        onStart.accept(seq);
    }
}
