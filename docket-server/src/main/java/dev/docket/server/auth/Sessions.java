package dev.docket.server.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Dashboard sessions: a login with a token opens a session whose id travels in an
 * {@code HttpOnly}, {@code SameSite=Strict} cookie, with a CSRF token that every state-changing
 * request must echo in the {@code X-CSRF-Token} header. Sessions live in memory and expire.
 */
public final class Sessions {

    public static final String COOKIE = "docket_session";
    public static final String CSRF_HEADER = "X-CSRF-Token";

    /** A logged-in dashboard user. */
    public record Session(String id, Role role, String csrfToken, long expiresAtNanos) {
    }

    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final Duration ttl;
    private final SecureRandom random = new SecureRandom();

    public Sessions(Duration ttl) {
        this.ttl = ttl;
    }

    public Duration ttl() {
        return ttl;
    }

    public Session open(Role role) {
        sweep();
        Session s = new Session(randomId(), role, randomId(), System.nanoTime() + ttl.toNanos());
        sessions.put(s.id(), s);
        return s;
    }

    public Optional<Session> find(String id) {
        if (id == null || id.length() != 64) {
            return Optional.empty();
        }
        Session s = sessions.get(id);
        if (s == null || System.nanoTime() - s.expiresAtNanos() > 0) {
            if (s != null) {
                sessions.remove(id);
            }
            return Optional.empty();
        }
        return Optional.of(s);
    }

    public void close(String id) {
        if (id != null) {
            sessions.remove(id);
        }
    }

    /** Whether {@code presented} is this session's CSRF token (constant-time comparison). */
    public static boolean csrfMatches(Session s, String presented) {
        return presented != null && MessageDigest.isEqual(s.csrfToken().getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }

    private void sweep() {
        long now = System.nanoTime();
        sessions.values().removeIf(s -> now - s.expiresAtNanos() > 0);
    }

    private String randomId() {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
