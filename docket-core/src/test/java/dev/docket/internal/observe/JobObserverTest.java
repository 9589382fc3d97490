package dev.docket.internal.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.Outcome;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the hot path pays for observation it does not use: the hooks a job passes through (claim,
 * attempt start and end, outcome written, enqueue metadata) allocate nothing per job.
 */
class JobObserverTest {

    private static final int JOBS = 200_000;
    private static final ClaimedJob JOB = new ClaimedJob(1, "default", "k", "{}", 1, 0, Instant.EPOCH, 1, 3, null, null,
            Instant.EPOCH.plusSeconds(30), null);
    private static final List<ClaimedJob> CLAIMED = List.of(JOB);
    private static final Outcome DONE = new Outcome.Completed(new Fence(1, 1), null);
    private static final Map<String, String> METADATA = Map.of();
    private static final Map<String, Duration> LEASES = Map.of();

    @Test
    void withoutRegistryAndWithoutOpenTelemetryNothingIsAllocatedPerJob() throws Exception {
        assertThat(bytesAllocatedPerJob(JobObserver.NONE)).isZero();
    }

    /** The test class path has the OpenTelemetry API, but no SDK is set globally: attempts record nothing. */
    @Test
    void withTheApiButNoSdkNothingIsAllocatedPerJob() throws Exception {
        JobObserver observer = JobObserver.create(null, new KindLabels(1), null);
        assertThat(observer).isNotSameAs(JobObserver.NONE);
        assertThat(bytesAllocatedPerJob(observer)).isZero();
    }

    private static long bytesAllocatedPerJob(JobObserver observer) throws ReflectiveOperationException {
        runJobs(observer);
        long before = allocatedBytes();
        runJobs(observer);
        // Reading the counter allocates a few bytes itself; per job that is 0.
        return (allocatedBytes() - before) / JOBS;
    }

    /** HotSpot's per-thread allocation counter (com.sun.management, which the test module does not read). */
    private static long allocatedBytes() throws ReflectiveOperationException {
        Method counter = Class.forName("com.sun.management.ThreadMXBean").getMethod("getCurrentThreadAllocatedBytes");
        return (long) counter.invoke(ManagementFactory.getThreadMXBean());
    }

    private static void runJobs(JobObserver observer) {
        for (int i = 0; i < JOBS; i++) {
            long started = observer.claimStarting();
            observer.claimed("default", started, CLAIMED, Duration.ZERO, LEASES);
            observer.attemptStarting(JOB).ended(DONE);
            observer.written(JOB, DONE);
            if (observer.withTraceContext(METADATA) != METADATA) {
                throw new AssertionError("metadata copied without a span");
            }
        }
    }
}
