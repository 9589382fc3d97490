package dev.docket.internal.rules;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The rules of {@code JobOptions.Builder}'s values, which its Javadoc states for users: each method
 * returns the value it accepts, or refuses it with a message that names the option and what was wrong
 * (quoting text only as {@link TextRules#describe} shows it).
 */
public final class JobOptionRules {

    /** Queue names: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -} ({@code JobOptions.QUEUE_NAME}). */
    public static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");
    /** Longest unique key and tenant, in characters ({@code JobOptions.MAX_KEY_LENGTH}). */
    public static final int MAX_KEY_LENGTH = 512;
    /** The earliest run time accepted ({@code JobOptions.EARLIEST_RUN_AT}). */
    public static final Instant EARLIEST_RUN_AT = Instant.parse("1970-01-01T00:00:00Z");
    /** The latest run time accepted ({@code JobOptions.LATEST_RUN_AT}). */
    public static final Instant LATEST_RUN_AT = Instant.parse("9999-12-31T23:59:59Z");
    /** The most jobs one job may depend on ({@code JobOptions.MAX_DEPENDENCIES}). */
    public static final int MAX_DEPENDENCIES = 100_000;
    /** The longest kind name, in characters ({@code Docket.MAX_KIND_LENGTH}). */
    public static final int MAX_KIND_LENGTH = 255;
    /** Signal names: 1 to 128 characters of {@code A-Z a-z 0-9 _ . : -} ({@code JobOptions.SIGNAL_NAME}). */
    public static final Pattern SIGNAL_NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");
    /** The longest wait for a signal, and the longest delay after dependencies: 100 years. */
    public static final Duration MAX_WAIT = Duration.ofDays(365 * 100);

    /** The longest {@code delay}: 100 years. */
    private static final Duration MAX_DELAY = Duration.ofDays(365 * 100);
    /** The longest {@code uniqueFor}: 366 days. */
    private static final Duration MAX_UNIQUE_FOR = Duration.ofDays(366);

    private JobOptionRules() {
    }

    /** Refuses a kind name that is blank, too long, or not printable text (see {@link TextRules#isName}). */
    public static void checkKind(String kind) {
        if (kind == null || kind.isBlank() || kind.length() > MAX_KIND_LENGTH || !TextRules.isName(kind)) {
            throw new IllegalArgumentException("kind must be 1 to " + MAX_KIND_LENGTH + " characters without "
                    + "control characters, invisible formatting characters (zero-width, bidirectional), separators "
                    + "other than the space, unassigned code points or unpaired surrogates, was "
                    + TextRules.describe(kind));
        }
    }

    /** A queue name: {@code QUEUE_NAME}, never null. */
    public static String checkQueue(String queue) {
        if (queue == null || !QUEUE_NAME.matcher(queue).matches()) {
            throw new IllegalArgumentException("queue must be 1 to 128 characters of A-Z a-z 0-9 _ . : -, was "
                    + TextRules.describe(queue));
        }
        return queue;
    }

    /** A signal name: {@code SIGNAL_NAME}, never null. */
    public static String checkSignalName(String name) {
        if (name == null || !SIGNAL_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("signal name must be 1 to 128 characters of A-Z a-z 0-9 _ . : -, was "
                    + TextRules.describe(name));
        }
        return name;
    }

    /** How long a job waits for a signal before {@code onTimeout}: from 1 ms to 100 years, with a path to take. */
    public static Duration checkSignalTimeout(Duration timeout, Object onTimeout) {
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(onTimeout, "onTimeout");
        if (timeout.isNegative() || timeout.compareTo(MAX_WAIT) > 0 || timeout.toNanos() < 1_000_000) {
            throw new IllegalArgumentException("a signal's timeout must be from 1ms to 100 years, was " + timeout);
        }
        return timeout;
    }

    /** How long after its dependencies a job runs: from 1 ms to 100 years. */
    public static Duration checkDelayAfterDependencies(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative() || delay.isZero() || delay.compareTo(MAX_WAIT) > 0 || delay.toNanos() < 1_000_000) {
            throw new IllegalArgumentException("delayAfterDependencies must be from 1ms to 100 years, was " + delay);
        }
        return delay;
    }

    /** The longest debounce window: 366 days. */
    public static final Duration MAX_DEBOUNCE_WINDOW = Duration.ofDays(366);
    /** The longest debounce maximum wait: 3660 days. */
    public static final Duration MAX_DEBOUNCE_WAIT = Duration.ofDays(3660);

    /** A debounce key: 1 to 512 characters of text, never null. */
    public static String checkDebounceKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("debounce key must be 1 to " + MAX_KEY_LENGTH
                    + " characters without NUL or unpaired surrogates, was null");
        }
        return checkKey("debounce key", key);
    }

    /** A debounce window: from 1 ms to 366 days. */
    public static Duration checkDebounceWindow(Duration window) {
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.toNanos() < 1_000_000 || window.compareTo(MAX_DEBOUNCE_WINDOW) > 0) {
            throw new IllegalArgumentException("debounce window must be from 1ms to 366 days, was " + window);
        }
        return window;
    }

    /** A debounce maximum wait: from the window to 3660 days. */
    public static Duration checkDebounceMaxWait(Duration maxWait, Duration window) {
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.compareTo(window) < 0 || maxWait.compareTo(MAX_DEBOUNCE_WAIT) > 0) {
            throw new IllegalArgumentException("debounce maxWait must be from the window (" + window
                    + ") to 3660 days, was " + maxWait);
        }
        return maxWait;
    }

    /** The maximum wait of a debounce that names none: {@code windows} windows, at most 3660 days. */
    public static Duration defaultDebounceMaxWait(Duration window, int windows) {
        Duration wait = window.multipliedBy(windows);
        return wait.compareTo(MAX_DEBOUNCE_WAIT) > 0 ? MAX_DEBOUNCE_WAIT : wait;
    }

    /** A due time from {@code EARLIEST_RUN_AT} to {@code LATEST_RUN_AT}, both included; refused outside, never clamped. */
    public static Instant checkRunAt(Instant runAt) {
        Objects.requireNonNull(runAt, "runAt");
        if (runAt.isBefore(EARLIEST_RUN_AT) || runAt.isAfter(LATEST_RUN_AT)) {
            throw new IllegalArgumentException("runAt must be from " + EARLIEST_RUN_AT + " to " + LATEST_RUN_AT
                    + ", was " + runAt);
        }
        return runAt;
    }

    /** A delay from zero to 100 years. */
    public static Duration checkDelay(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative, was " + delay);
        }
        if (delay.compareTo(MAX_DELAY) > 0) {
            throw new IllegalArgumentException("delay must be at most 100 years, was " + delay);
        }
        return delay;
    }

    /** How long a unique key is held: from 1 ms to 366 days. */
    public static Duration checkUniqueFor(Duration period) {
        Objects.requireNonNull(period, "period");
        if (period.isNegative() || period.isZero() || period.compareTo(MAX_UNIQUE_FOR) > 0) {
            throw new IllegalArgumentException("uniqueFor must be from 1ms to 366 days, was " + period);
        }
        return period;
    }

    /** A unique key, tenant or sequence key ({@code name} says which): null, or 1 to 512 characters of text. */
    public static String checkKey(String name, String value) {
        if (value != null && (value.isEmpty() || value.length() > MAX_KEY_LENGTH || !TextRules.isText(value))) {
            throw new IllegalArgumentException(name + " must be 1 to " + MAX_KEY_LENGTH
                    + " characters without NUL or unpaired surrogates, was " + TextRules.describe(value));
        }
        return value;
    }

    /** Whether {@code key} and {@code value} may be added to {@code metadata} (or replace its value there). */
    public static void checkMetadata(Map<String, String> metadata, String key, String value) {
        Objects.requireNonNull(value, "value");
        if (key == null || key.isEmpty() || key.length() > 64 || !TextRules.isText(key)) {
            throw new IllegalArgumentException("a metadata key must be 1 to 64 characters without NUL or unpaired "
                    + "surrogates, was " + TextRules.describe(key));
        }
        if (value.length() > 512 || !TextRules.isText(value)) {
            throw new IllegalArgumentException("metadata value of " + TextRules.describe(key) + " must be at most 512 characters "
                    + "without NUL or unpaired surrogates");
        }
        if (!metadata.containsKey(key) && metadata.size() >= 32) {
            throw new IllegalArgumentException("at most 32 metadata entries");
        }
    }

    /** A copy of the ids of the jobs a job depends on: positive, none twice, at most {@code MAX_DEPENDENCIES}. */
    public static long[] checkDependsOn(long[] jobIds) {
        Objects.requireNonNull(jobIds, "jobIds");
        if (jobIds.length > MAX_DEPENDENCIES) {
            throw new IllegalArgumentException("a job may depend on at most " + MAX_DEPENDENCIES + " jobs, was "
                    + jobIds.length);
        }
        HashSet<Long> seen = new HashSet<>();
        for (long id : jobIds) {
            if (id <= 0) {
                throw new IllegalArgumentException("dependsOn ids must be positive job ids, was " + id);
            }
            if (!seen.add(id)) {
                throw new IllegalArgumentException("dependsOn lists job " + id + " twice");
            }
        }
        return jobIds.clone();
    }
}
