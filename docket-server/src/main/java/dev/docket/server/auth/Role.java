package dev.docket.server.auth;

import java.util.Locale;

/**
 * What a token may do. Roles are not a ladder: a producer may enqueue but not read others' jobs'
 * payloads; a viewer reads with payloads redacted; an operator reads everything and acts on jobs;
 * an admin may do all of it.
 */
public enum Role {
    VIEWER,
    PRODUCER,
    OPERATOR,
    ADMIN;

    /** Read jobs, statistics and the dead-letter table (payloads redacted unless {@link #seesPayloads()}). */
    public boolean canRead() {
        return true;
    }

    /** Enqueue jobs. */
    public boolean canEnqueue() {
        return this == PRODUCER || this == ADMIN;
    }

    /** Retry, cancel, replay and pause. */
    public boolean canOperate() {
        return this == OPERATOR || this == ADMIN;
    }

    /**
     * Send a signal to a job (an approval, an event a waiting job expects): roles that enqueue or operate
     * (producer, operator, admin), not viewers.
     */
    public boolean canSignal() {
        return canEnqueue() || canOperate();
    }

    /** See payloads (behind an explicit action in the dashboard). */
    public boolean seesPayloads() {
        return this == OPERATOR || this == ADMIN;
    }

    /**
     * Edit dead jobs' payloads before they are replayed: roles that may both operate and see payloads
     * (operator and admin).
     */
    public boolean canRepair() {
        return canOperate() && seesPayloads();
    }

    /** Parses {@code viewer}, {@code producer}, {@code operator} or {@code admin}, ignoring case. */
    public static Role parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown role '" + text + "': use viewer, producer, operator or admin");
        }
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
