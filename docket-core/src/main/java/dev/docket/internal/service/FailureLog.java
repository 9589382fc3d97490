package dev.docket.internal.service;

import java.time.Instant;
import org.slf4j.Logger;

/**
 * A service's failures in a row and its last failure, logged at the 1st and every 10th failure
 * in a row, so that an outage is reported at once and then every tenth round instead of flooding
 * the log. Thread-safe for one writer (the service's thread) and any number of readers.
 */
public final class FailureLog {

    /** What a failure was: when, and its exception's {@code toString()} (never a payload). */
    public record Failure(Instant at, String error) {
    }

    private static final int LOG_EVERY = 10;

    private final String service;
    private final Logger log;
    private volatile int consecutive;
    private volatile Failure last;

    public FailureLog(String service, Logger log) {
        this.service = service;
        this.log = log;
    }

    /** Records a failed round; returns the failures in a row, this one included. */
    public int failed(Throwable e) {
        int failures = ++consecutive;
        last = new Failure(Instant.now(), e.toString());
        if (failures == 1 || failures % LOG_EVERY == 0) {
            log.warn("docket: {} failed ({} in a row): {}", service, failures, e.toString());
        }
        return failures;
    }

    /** Records a successful round. */
    public void succeeded() {
        consecutive = 0;
    }

    /** Rounds in a row that failed; 0 when the last round succeeded. */
    public int consecutive() {
        return consecutive;
    }

    /** The last failure, however long ago, or null if there was none. */
    public Failure last() {
        return last;
    }
}
