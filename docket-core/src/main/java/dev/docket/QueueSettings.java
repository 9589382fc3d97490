package dev.docket;

import java.time.Instant;

/**
 * A queue's cluster-wide settings, kept in the database; every worker picks up a change within a
 * second (a resume at once). A queue nobody configured has the defaults: not paused, no caps.
 *
 * @param paused           paused queues are not claimed; jobs already running finish
 * @param maxRunning       at most this many of the queue's jobs run at once across the cluster, or null
 * @param tenantMaxRunning at most this many jobs of one tenant run at once across the cluster, or null
 * @param updatedAt        when the settings last changed (null for defaults)
 */
public record QueueSettings(String queue, boolean paused, Integer maxRunning, Integer tenantMaxRunning,
                            Instant updatedAt) {

    /** The settings of a queue nobody configured. */
    public static QueueSettings defaults(String queue) {
        return new QueueSettings(queue, false, null, null, null);
    }

    /** Whether claims of this queue must count running jobs. */
    public boolean capped() {
        return maxRunning != null || tenantMaxRunning != null;
    }
}
