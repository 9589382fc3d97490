package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.server.auth.Role;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Authentication, role boundaries, dashboard sessions with CSRF protection, and security headers. */
class ApiSecurityTest extends ServerTest {

    private static final String JOB = json("kind", "k", "payload", Map.of());

    private static void assertError(Reply r, int status, String code) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.header("Content-Type")).startsWith("application/json");
        assertThat(r.json().get("error").asText()).isEqualTo(code);
        assertThat(r.json().get("message").asText()).isNotBlank();
    }

    @Test
    void noTokenIs401Json() {
        assertError(send(request("/api/jobs").GET().build()), 401, "unauthorized");
        assertError(send(request("/api/jobs").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JOB)).build()), 401, "unauthorized");
        assertError(send(request("/api/stats").GET().build()), 401, "unauthorized");
        assertThat(liveAndFinishedJobs()).isZero();
    }

    @Test
    void wrongOrMalformedTokenIs401() {
        assertError(send(request("/api/jobs").header("Authorization", "Bearer " + "0".repeat(64)).GET().build()),
                401, "unauthorized");
        assertError(send(request("/api/jobs").header("Authorization", "Bearer").GET().build()), 401, "unauthorized");
        assertError(send(request("/api/jobs").header("Authorization", "Basic YWRtaW46YWRtaW4=").GET().build()),
                401, "unauthorized");
        assertError(send(request("/api/jobs").header("Authorization", "Bearer " + tokens.get(Role.ADMIN) + "x")
                .GET().build()), 401, "unauthorized");
    }

    @Test
    void rolesAreEnforcedPerRoute() {
        long id = post("/api/jobs", Role.PRODUCER, JOB).json().get("id").asLong();

        assertError(post("/api/jobs", Role.VIEWER, JOB), 403, "forbidden");
        assertError(post("/api/jobs", Role.OPERATOR, JOB), 403, "forbidden");
        assertError(post("/api/jobs/batch", Role.VIEWER, json("jobs", List.of(Map.of("kind", "k", "payload", 1)))),
                403, "forbidden");
        assertError(post("/api/jobs/" + id + "/cancel", Role.VIEWER), 403, "forbidden");
        assertError(post("/api/jobs/" + id + "/cancel", Role.PRODUCER), 403, "forbidden");
        assertError(post("/api/jobs/" + id + "/retry", Role.PRODUCER), 403, "forbidden");
        assertError(post("/api/dlq/" + id + "/retry", Role.VIEWER), 403, "forbidden");
        assertError(post("/api/dlq/retry", Role.PRODUCER, "{}"), 403, "forbidden");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);

        assertThat(get("/api/jobs", Role.PRODUCER).status()).isEqualTo(200);
        assertThat(get("/metrics", Role.VIEWER).status()).isEqualTo(200);
        assertThat(post("/api/jobs/" + id + "/cancel", Role.OPERATOR).status()).isEqualTo(200);
        assertThat(post("/api/jobs", Role.ADMIN, JOB).status()).isEqualTo(201);
    }

    @Test
    void tokensAreLookedUpExactly() {
        for (Role role : Role.values()) {
            assertThat(tokenStore.roleOf(tokens.get(role))).contains(role);
        }
        assertThat(tokenStore.roleOf(tokens.get(Role.ADMIN).toUpperCase())).isEmpty();
        assertThat(tokenStore.roleOf(tokens.get(Role.ADMIN).substring(1))).isEmpty();
        assertThat(tokenStore.roleOf("")).isEmpty();
        assertThat(tokenStore.roleOf(null)).isEmpty();
    }

    /** Logs in with the admin token; returns the session cookie and its CSRF token. */
    private String[] login(Role role) {
        Reply r = send(request("/api/session").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json("token", tokens.get(role)))).build());
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        String cookie = r.header("Set-Cookie");
        assertThat(cookie).startsWith("docket_session=").contains("HttpOnly").contains("SameSite=Strict").contains("Path=/");
        assertThat(r.json().get("role").asText()).isEqualTo(role.label());
        return new String[] {cookie.substring(0, cookie.indexOf(';')), r.json().get("csrfToken").asText()};
    }

    private HttpRequest.Builder withSession(String path, String cookie) {
        return request(path).header("Cookie", cookie);
    }

    @Test
    void sessionCookieNeedsTheCsrfTokenToChangeState() {
        String[] session = login(Role.ADMIN);
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.ofString(JOB);

        Reply read = send(withSession("/api/jobs", session[0]).GET().build());
        Reply noCsrf = send(withSession("/api/jobs", session[0]).header("Content-Type", "application/json")
                .POST(body).build());
        Reply wrongCsrf = send(withSession("/api/jobs", session[0]).header("Content-Type", "application/json")
                .header("X-CSRF-Token", session[1].substring(1) + "0").POST(body).build());
        assertThat(liveAndFinishedJobs()).isZero();
        Reply rightCsrf = send(withSession("/api/jobs", session[0]).header("Content-Type", "application/json")
                .header("X-CSRF-Token", session[1]).POST(body).build());

        assertThat(read.status()).isEqualTo(200);
        assertError(noCsrf, 403, "csrf");
        assertError(wrongCsrf, 403, "csrf");
        assertThat(rightCsrf.status()).as(rightCsrf.text()).isEqualTo(201);
        assertThat(liveAndFinishedJobs()).isEqualTo(1);
    }

    @Test
    void sessionKeepsTheRoleOfItsToken() {
        String[] session = login(Role.VIEWER);

        Reply whoami = send(withSession("/api/session", session[0]).GET().build());
        Reply enqueue = send(withSession("/api/jobs", session[0]).header("Content-Type", "application/json")
                .header("X-CSRF-Token", session[1]).POST(HttpRequest.BodyPublishers.ofString(JOB)).build());

        assertThat(whoami.json().get("role").asText()).isEqualTo("viewer");
        assertThat(whoami.json().get("seesPayloads").asBoolean()).isFalse();
        assertThat(whoami.json().get("csrfToken").asText()).isEqualTo(session[1]);
        assertError(enqueue, 403, "forbidden");
    }

    @Test
    void logoutEndsTheSession() {
        String[] session = login(Role.OPERATOR);

        Reply withoutCsrf = send(withSession("/api/session", session[0]).DELETE().build());
        Reply out = send(withSession("/api/session", session[0]).header("X-CSRF-Token", session[1]).DELETE().build());
        Reply after = send(withSession("/api/jobs", session[0]).GET().build());

        assertError(withoutCsrf, 403, "csrf");
        assertThat(out.status()).isEqualTo(200);
        assertThat(out.header("Set-Cookie")).contains("Max-Age=0");
        assertError(after, 401, "unauthorized");
    }

    @Test
    void loginWithAWrongTokenIs401AndForgedCookiesAreIgnored() {
        Reply r = send(request("/api/session").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json("token", "x".repeat(64)))).build());
        Reply forged = send(withSession("/api/jobs", "docket_session=" + "a".repeat(64)).GET().build());

        assertError(r, 401, "unauthorized");
        assertThat(r.header("Set-Cookie")).isNull();
        assertError(forged, 401, "unauthorized");
    }

    @Test
    void securityHeadersOnEveryResponse() {
        for (Reply r : List.of(get("/api/jobs", Role.VIEWER), send(request("/api/jobs").GET().build()),
                send(request("/health").GET().build()), send(request("/no/such/page").GET().build()))) {
            String csp = r.header("Content-Security-Policy");
            assertThat(csp).as("CSP").contains("default-src 'self'").contains("script-src 'self'")
                    .contains("frame-ancestors 'none'").doesNotContain("unsafe-inline").doesNotContain("unsafe-eval");
            assertThat(r.header("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(r.header("X-Frame-Options")).isEqualTo("DENY");
            assertThat(r.header("Referrer-Policy")).isEqualTo("no-referrer");
        }
        assertThat(get("/api/jobs", Role.VIEWER).header("Cache-Control")).isEqualTo("no-store");
    }

    @Test
    void refusesToStartWithoutTokens() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DocketServer.start(docket,
                        new dev.docket.server.auth.TokenStore(), DocketServer.Config.defaults().withPort(0)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("DOCKET_TOKENS");
    }
}
