package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.server.auth.Role;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Whatever a client sends, the answer is a 4xx JSON {@code {error, message}}: never a 5xx, never
 * a stack trace, and nothing is inserted.
 */
class ApiHostileInputTest extends ServerTest {

    private static final List<String> HOSTILE = List.of("'; DROP TABLE jobs; --", "1 OR 1=1", "\" OR \"\"=\"",
            "%' OR '%'='", "1; SELECT pg_sleep(10)", "../../etc/passwd", "\u0000", "\u202e\ufeffzero\u200bwidth",
            "\ud83d\ude00", "x".repeat(5000), "-1", "0", "1e999", "99999999999999999999", "$(reboot)", "<script>alert(1)</script>");

    private boolean expectInserted;

    @AfterEach
    void nothingInserted() {
        if (!expectInserted) {
            assertThat(liveAndFinishedJobs()).as("jobs inserted by hostile requests").isZero();
        }
        assertThat(queryLong("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?", schema))
                .as("tables intact").isGreaterThanOrEqualTo(4);
    }

    /** A 4xx JSON error without internals. */
    private static void assertRejected(Reply r, int... statuses) {
        assertThat(r.status()).as(r.text()).isBetween(400, 499);
        if (statuses.length > 0) {
            assertThat(r.status()).as(r.text()).isIn(java.util.Arrays.stream(statuses).boxed().toList());
        }
        assertThat(r.header("Content-Type")).as(r.text()).startsWith("application/json");
        assertThat(r.json()).as(r.text()).isNotNull();
        assertThat(r.json().get("error").isTextual()).as(r.text()).isTrue();
        assertThat(r.json().get("message").isTextual()).as(r.text()).isTrue();
        assertNoInternals(r);
    }

    private static void assertNoInternals(Reply r) {
        assertThat(r.text()).doesNotContain("Exception").doesNotContain("at dev.").doesNotContain("at io.")
                .doesNotContain("at java.").doesNotContain("org.postgresql").doesNotContain("root:");
    }

    private Reply postBytes(String path, String contentType, byte[] body) {
        HttpRequest.Builder b = request(path, Role.ADMIN).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b.build());
    }

    /** A response read off a raw socket: status, content type and body. */
    private record RawReply(int status, String contentType, String body) {
    }

    /** Sends {@code GET target} exactly as given (no client-side normalizing or escaping). */
    private RawReply rawGet(String target, Role role) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(10_000);
            String request = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + (role == null ? "" : "Authorization: Bearer " + tokens.get(role) + "\r\n") + "\r\n";
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int headerEnd = response.indexOf("\r\n\r\n");
            String head = response.substring(0, headerEnd);
            String contentType = head.lines().filter(l -> l.toLowerCase(java.util.Locale.ROOT).startsWith("content-type:"))
                    .map(l -> l.substring(13).strip()).findFirst().orElse("");
            return new RawReply(Integer.parseInt(head.split(" ")[1]), contentType, response.substring(headerEnd + 4));
        }
    }

    private static void assertRejected(String target, RawReply r) throws Exception {
        assertThat(r.status()).as("%s: %s", target, r.body()).isBetween(400, 499);
        assertThat(r.contentType()).as(r.body()).startsWith("application/json");
        var json = JSON.readTree(r.body().contains("{") ? r.body().substring(r.body().indexOf('{')) : "null");
        assertThat(json.path("error").isTextual()).as(r.body()).isTrue();
        assertThat(json.path("message").isTextual()).as(r.body()).isTrue();
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("at dev.").doesNotContain("root:x:")
                .doesNotContain("\"openapi\"");
    }

    private Reply postJson(String path, String body) {
        return post(path, Role.ADMIN, body);
    }

    @Test
    void malformedJson() {
        for (String body : List.of("{", "{\"kind\": \"k\", \"payload\": }", "[1,2", "nul", "{\"kind\":\"k\",\"payload\":{}}}",
                "{'kind': 'k'}", "{\"kind\":\"k\",\"payload\":NaN}", "{\"kind\":\"k\",\"payload\":{},}")) {
            assertRejected(postJson("/api/jobs", body), 400);
            assertRejected(postJson("/api/jobs/batch", body), 400);
            assertRejected(postJson("/api/dlq/retry", body), 400);
        }
    }

    @Test
    void wrongOrMissingContentType() {
        byte[] body = json("kind", "k", "payload", Map.of()).getBytes(StandardCharsets.UTF_8);
        assertRejected(postBytes("/api/jobs", "text/plain", body), 415);
        assertRejected(postBytes("/api/jobs", "application/x-www-form-urlencoded", body), 415);
        assertRejected(postBytes("/api/jobs", null, body), 415);
        assertRejected(postBytes("/api/jobs/batch", "multipart/form-data; boundary=x", body), 415);
    }

    @Test
    void emptyBody() {
        assertRejected(postBytes("/api/jobs", "application/json", new byte[0]), 400);
        assertRejected(postBytes("/api/jobs/batch", "application/json", new byte[0]), 400);
        assertRejected(postBytes("/api/dlq/retry", "application/json", new byte[0]), 400);
        assertRejected(postBytes("/api/session", "application/json", new byte[0]), 400, 401);
    }

    @Test
    void unknownFieldsAndWrongShapes() {
        assertRejected(postJson("/api/jobs", json("kind", "k", "payload", Map.of(), "runAtt", "x")), 400);
        assertRejected(postJson("/api/jobs", json("kind", "k", "payload", Map.of(), "__proto__", Map.of())), 400);
        assertRejected(postJson("/api/jobs", "[]"), 400);
        assertRejected(postJson("/api/jobs", "\"kind\""), 400);
        assertRejected(postJson("/api/jobs", "null"), 400);
        assertRejected(postJson("/api/jobs", json("payload", Map.of())), 400);
        assertRejected(postJson("/api/jobs", json("kind", "k")), 400);
        assertRejected(postJson("/api/jobs", json("kind", "k", "payload", Map.of(), "runAt", "2026-01-01T00:00:00Z",
                "delay", "5m")), 400);
        assertRejected(postJson("/api/jobs/batch", json("jobs", List.of())), 400);
        assertRejected(postJson("/api/jobs/batch", json("jobs", Map.of())), 400);
        assertRejected(postJson("/api/jobs/batch", json("jobs", List.of(Map.of("kind", "ok", "payload", 1),
                Map.of("kind", "k", "payload", 1, "bogus", 1)))), 400);
        assertRejected(postJson("/api/jobs/batch", json("jobs", java.util.Collections.nCopies(1001,
                Map.of("kind", "k", "payload", 1)))), 400);
        assertRejected(postJson("/api/dlq/retry", json("kind", "k", "ratePerSecondd", 3)), 400);
        assertRejected(putJson("/api/queues/default/limits", json("maxRunning", 1, "max", 2)), 400);
        assertRejected(putJson("/api/queues/default/limits", "[]"), 400);
    }

    private Reply putJson(String path, String body) {
        return send(request(path, Role.ADMIN).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    @Test
    void hostileQueueNamesAndLimits() {
        for (String name : List.of("bad%20name", "%27%3B%20DROP%20TABLE%20jobs%3B--", "x".repeat(129), "%00", "%E2%80%AE")) {
            assertRejected(post("/api/queues/" + name + "/pause", Role.ADMIN), 400);
            assertRejected(post("/api/queues/" + name + "/resume", Role.ADMIN), 400);
            assertRejected(putJson("/api/queues/" + name + "/limits", json("maxRunning", 1)), 400);
        }
        for (Object bad : List.of(-1, "5", 1.5, 2147483648L, "1e400", List.of(1))) {
            assertRejected(putJson("/api/queues/default/limits", json("maxRunning", bad)), 400);
            assertRejected(putJson("/api/queues/default/limits", json("tenantMaxRunning", bad)), 400);
        }
        assertRejected(putJson("/api/queues/default/limits", json("tenantMaxRunning", 0)), 400);
        assertRejected(send(request("/api/queues/default/limits", Role.ADMIN).header("Content-Type", "text/plain")
                .PUT(HttpRequest.BodyPublishers.ofString("{}")).build()), 415);
        assertThat(get("/api/queues", Role.ADMIN).json().get("queues")).isEmpty();
    }

    @Test
    void wrongTypes() {
        for (Object[] fields : List.of(
                new Object[] {"kind", 5}, new Object[] {"kind", List.of("k")}, new Object[] {"kind", ""},
                new Object[] {"kind", "a\nb"}, new Object[] {"queue", 7}, new Object[] {"queue", "bad queue!"},
                new Object[] {"priority", "high"}, new Object[] {"priority", 1.5}, new Object[] {"priority", true},
                new Object[] {"maxAttempts", "3"}, new Object[] {"maxAttempts", 0}, new Object[] {"maxAttempts", -1},
                new Object[] {"runAt", 12345}, new Object[] {"runAt", "tomorrow"}, new Object[] {"delay", 30},
                new Object[] {"delay", "-5s"}, new Object[] {"delay", "forever"}, new Object[] {"uniqueKey", 1},
                new Object[] {"uniqueKey", ""}, new Object[] {"tenant", Map.of()}, new Object[] {"tenant", "x".repeat(513)},
                new Object[] {"sequenceKey", ""}, new Object[] {"sequenceKey", 5}, new Object[] {"sequenceKey", "x".repeat(513)},
                new Object[] {"sequenceKey", List.of("a")}, new Object[] {"haltSequenceOnDeath", Map.of()})) {
            Map<String, Object> body = new java.util.LinkedHashMap<>(Map.of("kind", "k", "payload", Map.of()));
            body.put((String) fields[0], fields[1]);
            assertRejected(postJson("/api/jobs", json(body.entrySet().stream()
                    .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toArray())), 400);
        }
        assertRejected(postJson("/api/dlq/retry", json("ratePerSecond", "fast")), 400);
        assertRejected(postJson("/api/dlq/retry", json("ratePerSecond", 0)), 400);
        assertRejected(postJson("/api/dlq/retry", json("max", -1)), 400);
        assertRejected(postJson("/api/dlq/retry", json("kind", 3)), 400);
        assertRejected(postJson("/api/dlq/retry", json("errorContains", "\u0000")), 400);
        assertRejected(postJson("/api/session", json("token", 12)), 400, 401);
    }

    @Test
    void hugeNumbers() {
        for (String number : List.of("1e30", "99999999999999999999", "2147483648", "-2147483649", "32768", "1e400",
                "1" + "0".repeat(999))) {
            assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{},\"priority\":" + number + "}"), 400);
            if (!number.equals("32768")) {
                assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{},\"maxAttempts\":" + number + "}"), 400);
            }
            assertRejected(postJson("/api/dlq/retry", "{\"ratePerSecond\":" + number + "}"), 400);
        }
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{\"n\":1e999999}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{\"n\":1" + "0".repeat(5000) + "}}"), 400);
        assertRejected(get("/api/jobs?limit=99999999999999999999", Role.VIEWER), 400);
        assertRejected(get("/api/jobs?after=99999999999999999999", Role.VIEWER), 400);
    }

    @Test
    void bigButStorableNumbersArriveExactly() {
        expectInserted = true;
        Reply r = postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{\"big\":1e400,\"int\":123456789012345678901234567890,"
                + "\"tiny\":1e-300,\"exact\":0.1}}");

        assertThat(r.status()).as(r.text()).isEqualTo(201);
        var payload = get("/api/jobs/" + r.json().get("id").asLong(), Role.ADMIN).json().get("payload");
        assertThat(payload.get("big").decimalValue()).isEqualByComparingTo("1e400");
        assertThat(payload.get("int").bigIntegerValue()).isEqualTo(new java.math.BigInteger("123456789012345678901234567890"));
        assertThat(payload.get("exact").asText()).isEqualTo("0.1");
    }

    @Test
    void badIds() {
        for (String id : List.of("-1", "0", "abc", "1e3", "1.5", "99999999999999999999", "%20", "1%00",
                "1;DROP%20TABLE%20jobs", "0x10", "%E2%80%AE1")) {
            assertRejected(get("/api/jobs/" + id, Role.ADMIN), 400, 404);
            assertRejected(post("/api/jobs/" + id + "/cancel", Role.ADMIN), 400, 404);
            assertRejected(post("/api/jobs/" + id + "/retry", Role.ADMIN), 400, 404);
            assertRejected(post("/api/dlq/" + id + "/retry", Role.ADMIN), 400, 404);
            assertRejected(get("/api/dlq/replays/" + id, Role.ADMIN), 400, 404);
        }
        assertRejected(get("/api/jobs/12345", Role.ADMIN), 404);
        assertRejected(post("/api/jobs/12345/cancel", Role.ADMIN), 404);
    }

    /** An id or a cursor below 1 is malformed (400), not an unknown job (404); a limit is 1 to 1000. */
    @Test
    void idsCursorsAndLimitsOutOfRangeAreBadRequests() {
        for (String id : List.of("0", "-1")) {
            assertRejected(get("/api/jobs/" + id, Role.ADMIN), 400);
            assertRejected(get("/api/workflows/" + id, Role.ADMIN), 400);
            assertRejected(get("/api/jobs?after=" + id, Role.VIEWER), 400);
            assertRejected(get("/api/dlq?after=" + id, Role.VIEWER), 400);
        }
        assertThat(get("/api/jobs/0", Role.ADMIN).json().get("message").asText())
                .isEqualTo("a job id is a positive whole number, was '0'");
        assertThat(get("/api/workflows/0", Role.ADMIN).json().get("message").asText())
                .isEqualTo("a workflow id is a positive whole number, was '0'");
        assertThat(post("/api/workflows/-1/cancel", Role.ADMIN).json().get("message").asText())
                .startsWith("a workflow id is");
        assertThat(post("/api/dlq/0/retry", Role.ADMIN).json().get("message").asText()).startsWith("a dead job id is");
        for (String limit : List.of("0", "-5", "1001")) {
            assertRejected(get("/api/jobs?limit=" + limit, Role.VIEWER), 400);
        }
        assertThat(get("/api/jobs?after=1&limit=1000", Role.VIEWER).status()).isEqualTo(200);
    }

    @Test
    void bodyOverTheLimitIs413() {
        byte[] body = new byte[(int) MAX_BODY + 1024];
        java.util.Arrays.fill(body, (byte) ' ');
        body[0] = '{';
        body[body.length - 1] = '}';
        assertRejected(postBytes("/api/jobs", "application/json", body), 413);
        assertRejected(postBytes("/api/jobs/batch", "application/json", body), 413);
        assertRejected(postBytes("/api/session", "application/json", body), 413);
    }

    @Test
    void payloadOverTheLimitIs413() {
        String big = "x".repeat(300 * 1024);
        Reply one = postJson("/api/jobs", json("kind", "k", "payload", Map.of("blob", big)));
        Reply batch = postJson("/api/jobs/batch", json("jobs", List.of(Map.of("kind", "k", "payload", Map.of()),
                Map.of("kind", "k", "payload", Map.of("blob", big)))));

        assertRejected(one, 413);
        assertThat(one.text()).doesNotContain("xxxx");
        assertRejected(batch, 413);
    }

    @Test
    void deeplyNestedJson() {
        String nested = "[".repeat(10_000) + "]".repeat(10_000);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":" + nested + "}"), 400);
        assertRejected(postJson("/api/jobs", nested), 400);
        assertRejected(postJson("/api/session", "{\"token\":" + nested + "}"), 400);
        String objects = "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000);
        assertRejected(postJson("/api/jobs/batch", objects), 400);
    }

    /** As deep as the parser allows (1000 levels with the body's own object): checked and stored, no 5xx. */
    @Test
    void payloadAsDeepAsTheParserAllowsIsEnqueued() {
        expectInserted = true;
        String deepest = "[".repeat(999) + "\"x\"" + "]".repeat(999);
        Reply r = postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":" + deepest + "}");
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":" + deepest.replace("\"x\"", "\"\\ud800\"") + "}"), 400);
    }

    @Test
    void invalidUtf8AndBadUnicode() {
        byte[] prefix = "{\"kind\":\"k\",\"payload\":{\"s\":\"".getBytes(StandardCharsets.UTF_8);
        for (byte[] bad : List.of(new byte[] {(byte) 0xff}, new byte[] {(byte) 0xc3, (byte) 0x28},
                new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, new byte[] {(byte) 0xf8, (byte) 0x88, (byte) 0x80})) {
            byte[] body = new byte[prefix.length + bad.length + 3];
            System.arraycopy(prefix, 0, body, 0, prefix.length);
            System.arraycopy(bad, 0, body, prefix.length, bad.length);
            System.arraycopy("\"}}".getBytes(StandardCharsets.UTF_8), 0, body, prefix.length + bad.length, 3);
            assertRejected(postBytes("/api/jobs", "application/json", body), 400);
        }
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{\"s\":\"\\ud800\"}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{\"\\udfff\":1}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{\"a\":[1,{\"b\":[[\"\\ud800\"]]}]}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{\"s\":\"a\\u0000b\"}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\\u0000\",\"payload\":{}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{},\"tenant\":\"t\\u0000\"}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{},\"uniqueKey\":\"\\u0000\"}"), 400);
    }

    @Test
    void hostileStringsInEveryQueryParameter() throws Exception {
        Map<String, List<String>> routes = Map.of(
                "/api/jobs", List.of("state", "queue", "kind", "limit", "after"),
                "/api/dlq", List.of("kind", "errorContains", "limit", "after"));
        for (Map.Entry<String, List<String>> route : routes.entrySet()) {
            for (String param : route.getValue()) {
                for (String value : HOSTILE) {
                    Reply r = get(route.getKey() + "?" + param + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8),
                            Role.VIEWER);
                    if (r.status() == 200) {
                        assertThat(r.json().get("jobs")).as("%s?%s=%s", route.getKey(), param, value).isEmpty();
                        assertNoInternals(r);
                    } else {
                        assertRejected(r, 400);
                    }
                }
            }
        }
        for (String raw : List.of("%FF", "%ED%A0%80", "%C3%28", "%", "%zz", "%00", "%u0000", "'--")) {
            for (String param : List.of("kind", "errorContains", "queue", "state", "limit", "after")) {
                RawReply r = rawGet((param.equals("errorContains") ? "/api/dlq" : "/api/jobs") + "?" + param + "=" + raw,
                        Role.VIEWER);
                if (r.status() == 200) {
                    assertThat(JSON.readTree(r.body()).get("jobs")).isEmpty();
                } else {
                    assertRejected(param + "=" + raw, r);
                }
            }
        }
    }

    @Test
    void pathTraversalInAssets() throws Exception {
        for (String path : List.of("/assets/../../../../etc/passwd", "/assets/..%2f..%2f..%2fetc%2fpasswd",
                "/assets/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/assets/%252e%252e/%252e%252e/etc/passwd",
                "/assets/....//....//etc/passwd", "/assets/%c0%ae%c0%ae/etc/passwd", "/assets/..\\..\\etc\\passwd",
                "/assets/../../../../../../../../etc/passwd%00.js", "/assets//etc/passwd", "/assets/%00",
                "/assets/../openapi.json", "/assets/..;/..;/etc/passwd", "/assets/%5c..%5c..%5cetc%5cpasswd",
                "/assets/file:///etc/passwd", "/assets/.%2e/.%2e/etc/passwd")) {
            assertRejected(path, rawGet(path, null));
            assertRejected(path, rawGet(path, Role.ADMIN));
        }
    }

    /** Unknown routes and wrong methods answer with documented codes, never {@code http_404}. */
    @Test
    void unknownRoutesAndMethods() {
        for (Reply r : List.of(get("/api/nope", Role.ADMIN), get("/nope", Role.ADMIN), get("/api/jobs/1/nope", Role.ADMIN),
                send(request("/api/nope").GET().build()))) {
            assertRejected(r, 404);
            assertThat(r.json().get("error").asText()).as(r.text()).isEqualTo("not_found");
        }
        for (Reply r : List.of(send(request("/api/jobs", Role.ADMIN).PUT(HttpRequest.BodyPublishers.ofString("{}")).build()),
                send(request("/api/jobs/1", Role.ADMIN).DELETE().build()),
                send(request("/api/stats", Role.ADMIN).method("PATCH", HttpRequest.BodyPublishers.ofString("{}")).build()),
                send(request("/api/stats", Role.ADMIN).POST(HttpRequest.BodyPublishers.noBody()).build()))) {
            assertRejected(r, 405);
            assertThat(r.json().get("error").asText()).as(r.text()).isEqualTo("method_not_allowed");
        }
    }

    /**
     * A lone UTF-16 surrogate (valid as a JSON escape, not as Unicode) in any text field is a 400:
     * PgJDBC would have stored it as {@code ?}. The second enqueue of such a unique key is a 400
     * too, where it used to loop against the database and answer 503.
     */
    @Test
    void loneSurrogatesInEveryTextFieldAre400() {
        List<String> bodies = List.of(
                "{\"kind\":\"a\\ud800b\",\"payload\":{}}",
                "{\"kind\":\"k\",\"payload\":{},\"uniqueKey\":\"x\\ud800\"}",
                "{\"kind\":\"k\",\"payload\":{},\"tenant\":\"\\udfff\"}",
                "{\"kind\":\"k\",\"payload\":{},\"queue\":\"q\\ud800\"}",
                "{\"kind\":\"k\",\"payload\":{},\"metadata\":{\"trace\\ud800\":\"v\"}}",
                "{\"kind\":\"k\",\"payload\":{},\"metadata\":{\"trace\":\"v\\udc00\"}}");
        for (String body : bodies) {
            assertRejected(postJson("/api/jobs", body), 400);
            assertRejected(postJson("/api/jobs/batch", "{\"jobs\":[" + body + "]}"), 400);
        }
        for (int round = 0; round < 2; round++) {
            Reply again = postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{},\"uniqueKey\":\"x\\ud800\"}");
            assertRejected(again, 400);
            assertThat(again.json().get("message").asText()).contains("uniqueKey").contains("surrogate");
        }
        assertRejected(postJson("/api/dlq/retry", "{\"errorContains\":\"x\\ud800\"}"), 400);
        assertRejected(postJson("/api/dlq/retry", "{\"kind\":\"\\ud800\"}"), 400);
    }

    /** Invisible and bidirectional characters would render misleadingly in the dashboard and the CLI. */
    @Test
    void invisibleOrBidirectionalKindsAre400() {
        for (String kind : List.of("send\u200bemail", "\u202egnp.exe", "\ufeffk", "a\u00a0b", "a\u2028b", "k\u0378")) {
            assertRejected(postJson("/api/jobs", json("kind", kind, "payload", Map.of())), 400);
            assertRejected(get("/api/jobs?kind=" + URLEncoder.encode(kind, StandardCharsets.UTF_8), Role.VIEWER), 400);
            assertRejected(get("/api/dlq?kind=" + URLEncoder.encode(kind, StandardCharsets.UTF_8), Role.VIEWER), 400);
            assertRejected(postJson("/api/dlq/retry", json("kind", kind)), 400);
        }
    }

    @Test
    void timesOutsideTheDocumentedRangeAre400NotClamped() {
        for (String runAt : List.of("+99999-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
                "+10000-01-01T00:00:00Z")) {
            Reply r = postJson("/api/jobs", json("kind", "k", "payload", Map.of(), "runAt", runAt));
            assertRejected(r, 400);
            assertThat(r.json().get("message").asText()).contains("1970-01-01T00:00:00Z").contains("9999-12-31T23:59:59Z");
        }
    }

    /** Bodies are mapped to records without coercion: the 400 names the field, and a null where a value belongs is no 5xx. */
    @Test
    void wrongTypesAndNullsNameTheField() {
        Map<String, String> cases = Map.of(
                "{\"kind\":\"k\",\"payload\":{},\"priority\":\"5\"}", "'priority' must be a whole number",
                "{\"kind\":\"k\",\"payload\":{},\"priority\":1.0}", "'priority' must be a whole number",
                "{\"kind\":\"k\",\"payload\":{},\"maxAttempts\":2147483648}", "'maxAttempts' must be a whole number",
                "{\"kind\":5,\"payload\":{}}", "'kind' must be a string",
                "{\"kind\":\"k\",\"payload\":{},\"metadata\":{\"t\":1}}", "'metadata.t' must be a string",
                "{\"kind\":\"k\",\"payload\":{},\"metadata\":{\"t\":null}}", "metadata.t must be a string",
                "{\"kind\":\"k\",\"payload\":{},\"metadata\":[]}", "'metadata' must be an object of strings",
                "{\"kind\":\"k\",\"payload\":{},\"bogus\":1}", "unknown field 'bogus'");
        cases.forEach((body, message) -> {
            Reply r = postJson("/api/jobs", body);
            assertRejected(r, 400);
            assertThat(r.json().get("message").asText()).as(body).contains(message);
        });
        Reply batch = postJson("/api/jobs/batch", "{\"jobs\":[{\"kind\":\"k\",\"payload\":{}},{\"kind\":\"k\",\"payload\":{},\"priority\":true}]}");
        assertRejected(batch, 400);
        assertThat(batch.json().get("message").asText()).contains("'jobs[1].priority' must be a whole number");
        assertRejected(postJson("/api/jobs/batch", "{\"jobs\":[null]}"), 400);
        assertRejected(postJson("/api/jobs/batch", "{\"jobs\":null}"), 400);
        assertRejected(postJson("/api/dlq/retry", "{\"max\":null,\"ratePerSecond\":\"5\"}"), 400);
        assertRejected(putJson("/api/queues/default/limits", "{\"maxRunning\":true}"), 400);
    }

    /** jsonb (and any record) would keep one of two equal keys and drop the other without a word. */    /** jsonb (and any record) would keep one of two equal keys and drop the other without a word. */
    @Test
    void duplicateJsonKeysAre400() {
        assertRejected(postJson("/api/jobs", "{\"kind\":\"a\",\"kind\":\"b\",\"payload\":{}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"a\",\"payload\":{\"x\":1,\"x\":2}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"a\",\"payload\":{\"deep\":[{\"x\":1,\"x\":1}]}}"), 400);
        assertRejected(postJson("/api/jobs", "{\"kind\":\"a\",\"payload\":{},\"metadata\":{\"t\":\"1\",\"t\":\"2\"}}"), 400);
        assertRejected(postJson("/api/jobs/batch", "{\"jobs\":[{\"kind\":\"a\",\"payload\":{},\"payload\":{}}]}"), 400);
        assertRejected(postJson("/api/dlq/retry", "{\"kind\":\"a\",\"kind\":\"b\"}"), 400);
        assertRejected(putJson("/api/queues/default/limits", "{\"maxRunning\":1,\"maxRunning\":2}"), 400);
        assertRejected(postJson("/api/session", "{\"token\":\"" + tokens.get(Role.ADMIN) + "\",\"token\":\"x\"}"), 400);
        Reply r = postJson("/api/jobs", "{\"kind\":\"a\",\"kind\":\"b\",\"payload\":{}}");
        assertThat(r.json().get("message").asText()).contains("twice");
    }

    /** A number of the wrong type or out of range quotes the range the field really takes, not an int's. */
    @Test
    void rangeErrorsQuoteTheFieldsRealRange() {
        for (String priority : List.of("\"high\"", "99999999999", "40000", "-40000")) {
            Reply r = postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{},\"priority\":" + priority + "}");
            assertRejected(r, 400);
            assertThat(r.json().get("message").asText()).as(priority).contains("priority").contains("32767")
                    .doesNotContain("2147483647");
        }
        Reply attempts = postJson("/api/jobs", "{\"kind\":\"k\",\"payload\":{},\"maxAttempts\":\"many\"}");
        assertRejected(attempts, 400);
        assertThat(attempts.json().get("message").asText()).contains("'maxAttempts' must be a whole number from 1 to 2147483647");
        Reply batch = postJson("/api/jobs/batch", "{\"jobs\":[{\"kind\":\"k\",\"payload\":{},\"priority\":\"x\"}]}");
        assertRejected(batch, 400);
        assertThat(batch.json().get("message").asText()).contains("-32768 to 32767");
        for (String permits : List.of("\"lots\"", "99999999999")) {
            Reply r = put("/api/rate-limits/kind/k?create=true", Role.ADMIN, "{\"permits\":" + permits + ",\"period\":\"1s\"}");
            assertRejected(r, 400);
            assertThat(r.json().get("message").asText()).as(permits).contains("'permits' must be a whole number from 1 to 1000000");
        }
        for (String rate : List.of("\"fast\"", "99999999999", "20000", "0")) {
            Reply r = postJson("/api/dlq/retry", "{\"kind\":\"k\",\"ratePerSecond\":" + rate + "}");
            assertRejected(r, 400);
            assertThat(r.json().get("message").asText()).as(rate).contains("ratePerSecond")
                    .contains("a whole number from 1 to 10000");
        }
    }
}
