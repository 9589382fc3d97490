package dev.docket.internal.service;

import java.sql.SQLException;
import java.time.Instant;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.slf4j.Logger;

/**
 * A service's failures in a row and its last failure, logged at the 1st and every 10th failure
 * in a row, so that an outage is reported at once and then every tenth round instead of flooding
 * the log. Thread-safe for one writer (the service's thread) and any number of readers.
 */
public final class FailureLog {

    /**
     * What a failure was: when, and its exception described by {@link #describe} (never a payload).
     */
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
        String error = describe(e);
        last = new Failure(Instant.now(), error);
        if (failures == 1 || failures % LOG_EVERY == 0) {
            log.warn("docket: {} failed ({} in a row): {}", service, failures, error);
        }
        return failures;
    }

    /**
     * An exception on one line with the causes it wraps and their SQLSTATEs: a pool's
     * "Connection is not available, request timed out" carries the database's own reason for
     * refusing the connection (too many connections, a password refused, a role that may not log in)
     * only as its cause, and that reason is what the operator must read.
     */
    public static String describe(Throwable e) {
        StringBuilder b = new StringBuilder();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t) && seen.size() <= 6; t = t.getCause()) {
            String text = t.toString();
            if (b.indexOf(text) >= 0) {
                continue;
            }
            if (!b.isEmpty()) {
                b.append("; caused by ");
            }
            b.append(text);
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                b.append(" [SQLSTATE ").append(sql.getSQLState()).append(']');
            }
        }
        return b.toString().replaceAll("\\s*[\\r\\n]+\\s*", " ");
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
