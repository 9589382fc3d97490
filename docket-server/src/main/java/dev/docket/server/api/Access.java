package dev.docket.server.api;

import dev.docket.server.auth.Role;
import io.javalin.security.RouteRole;

/** What a route needs of its caller. */
public enum Access implements RouteRole {
    /** No login: health, readiness, login page, static assets. */
    PUBLIC,
    /** Any valid token or session. */
    READ,
    /** Enqueue: producer or admin. */
    ENQUEUE,
    /** Retry, cancel, replay: operator or admin. */
    OPERATE,
    /**
     * Edit payloads (dead jobs' repairs, edits of jobs not started): roles that operate and see payloads
     * ({@link Role#canRepair()}).
     */
    REPAIR,
    /** Send a signal to a job: producer, operator or admin ({@link Role#canSignal()}). */
    SIGNAL;

    public boolean allows(Role role) {
        return switch (this) {
            case PUBLIC -> true;
            case READ -> role.canRead();
            case ENQUEUE -> role.canEnqueue();
            case OPERATE -> role.canOperate();
            case REPAIR -> role.canRepair();
            case SIGNAL -> role.canSignal();
        };
    }
}
