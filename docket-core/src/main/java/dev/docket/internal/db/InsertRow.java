package dev.docket.internal.db;

/**
 * One validated job to insert; {@code dependsOn} (empty for most jobs) are the jobs it waits for, as
 * {@code dependencyMode} (job_dependencies.mode) says. {@code runAtMicros} (epoch microseconds) or {@code delayMillis}
 * (after the database's now()) may be null; {@code uniqueForMillis} is null for a unique key held
 * only while the job is live; {@code payloadJson} is never logged. {@code sequenceKey} is null for a
 * job outside any sequence, and {@code haltSequence} says whether its death halts its sequence.
 * {@code waits} is null for a job that waits for no signal and has no timer; {@code debounce} is null for a
 * job that is not debounced (nearly all).
 */
public record InsertRow(String queue, String kind, String payloadJson, int payloadVersion, int priority,
                        Long runAtMicros, Long delayMillis, int maxAttempts, String tenant, String uniqueKey,
                        Long uniqueForMillis, String metadataJson, String sequenceKey, boolean haltSequence,
                        long[] dependsOn, String dependencyMode, Waits waits, Debounce debounce) {

    private static final long[] NONE = new long[0];

    /**
     * What a job waits for beyond its dependencies: a signal ({@code signal} null for none; {@code timeoutMillis}
     * and {@code onTimeout}, 'run', 'fail' or 'cancel', null for no timeout), and a timer after its dependencies
     * ({@code dependencyDelayMillis}, null for none).
     */
    public record Waits(String signal, Long timeoutMillis, String onTimeout, Long dependencyDelayMillis) {
    }

    /** A debounced job's key, window and maximum wait (JobOptions.Builder.debounce), in milliseconds. */
    public record Debounce(String key, long windowMillis, long maxWaitMillis) {
    }

    /** A job that is not debounced. */
    public InsertRow(String queue, String kind, String payloadJson, int payloadVersion, int priority,
                     Long runAtMicros, Long delayMillis, int maxAttempts, String tenant, String uniqueKey,
                     Long uniqueForMillis, String metadataJson, String sequenceKey, boolean haltSequence,
                     long[] dependsOn, String dependencyMode, Waits waits) {
        this(queue, kind, payloadJson, payloadVersion, priority, runAtMicros, delayMillis, maxAttempts, tenant,
                uniqueKey, uniqueForMillis, metadataJson, sequenceKey, haltSequence, dependsOn, dependencyMode, waits,
                null);
    }

    /** A job without dependencies. */
    public InsertRow(String queue, String kind, String payloadJson, int payloadVersion, int priority,
                     Long runAtMicros, Long delayMillis, int maxAttempts, String tenant, String uniqueKey,
                     Long uniqueForMillis, String metadataJson, String sequenceKey, boolean haltSequence) {
        this(queue, kind, payloadJson, payloadVersion, priority, runAtMicros, delayMillis, maxAttempts, tenant,
                uniqueKey, uniqueForMillis, metadataJson, sequenceKey, haltSequence, NONE, null, null, null);
    }

    /** Whether the job waits for other jobs. */
    public boolean hasDependencies() {
        return dependsOn.length > 0;
    }

    /** Whether the job waits for a signal at enqueue. */
    public boolean awaitsSignal() {
        return waits != null && waits.signal() != null;
    }

    /** How long after its dependencies the job runs, or null. */
    public Long dependencyDelayMillis() {
        return waits == null ? null : waits.dependencyDelayMillis();
    }

    @Override
    public String toString() {
        return "InsertRow[kind=" + kind + ", queue=" + queue + "]";
    }
}
