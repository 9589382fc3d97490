package dev.docket;

import java.time.Instant;

/**
 * A signal sent to a job ({@link JobInfo#signals()}). {@link #toString()} leaves the payload out: like a
 * job's payload it is never logged, and shown only to roles that may see payloads.
 *
 * @param id        the signal's id, in the order signals were sent
 * @param name      its name
 * @param sentAt    when it was sent (the sending transaction's time)
 * @param sentBy    who sent it, as an operator tool records it ({@code "ada (operator, dashboard)"}); {@code null}
 *                  for a signal sent through the library or the SQL function without a name
 * @param resumedAt when it ended a wait of the job (at once, or when a later wait took it); {@code null} while kept
 * @param payload   its payload as JSON text
 */
public record JobSignal(long id, String name, Instant sentAt, String sentBy, Instant resumedAt, String payload) {

    @Override
    public String toString() {
        return "JobSignal[id=" + id + ", name=" + name + ", sentAt=" + sentAt + ", sentBy=" + sentBy
                + ", resumedAt=" + resumedAt + "]";
    }
}
