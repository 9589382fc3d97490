package dev.docket;

import java.time.Duration;
import java.util.Objects;

/** The checks builders apply to numbers and durations, with one wording for every option's refusal. */
final class OptionChecks {

    private OptionChecks() {
    }

    static Duration positive(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
        return d;
    }

    static Duration nonNegative(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was " + d);
        }
        return d;
    }

    static Duration atLeast(String name, Duration d, Duration min) {
        positive(name, d);
        if (d.compareTo(min) < 0) {
            throw new IllegalArgumentException(name + " must be at least " + describe(min) + ", was " + d);
        }
        return d;
    }

    static int between(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    static int atLeast(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    private static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
