package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.server.auth.Role;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Requests written as raw bytes on a socket, as a hostile or broken client sends them: URLs that
 * are not UTF-8 and bodies whose framing is wrong. The answer is a documented 4xx with the API's
 * error body, and a body that cannot arrive is refused without waiting out the 30 s idle timeout.
 */
class RawHttpTest extends ServerTest {

    /**
     * Far below Jetty's 30 s idle timeout, far above the 5 s body read timeout plus a loaded machine's
     * delays: an answer after this bound waited for the idle timeout.
     */
    private static final long BOUND_MILLIS = 15_000;

    /** A response read off the socket, and how long after the request was written it was complete. */
    private record RawReply(int status, String head, String body, long millis) {
    }

    /**
     * Writes {@code head} (CRLFs included) and {@code body}, keeps the connection open for writing
     * and reads the answer until the server closes it or 40 s pass.
     */
    private RawReply send(String head, byte[] body) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(40_000);
            long start = System.nanoTime();
            socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(body);
            socket.getOutputStream().flush();
            String response = readResponse(socket.getInputStream());
            long millis = (System.nanoTime() - start) / 1_000_000;
            int headerEnd = response.indexOf("\r\n\r\n");
            assertThat(headerEnd).as("a complete response head: %s", response).isPositive();
            String responseHead = response.substring(0, headerEnd);
            return new RawReply(Integer.parseInt(responseHead.split(" ")[1]), responseHead,
                    response.substring(headerEnd + 4), millis);
        }
    }

    /** The bytes up to the end of the body its Content-Length announces, or to the close. */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                all.write(buffer, 0, n);
                String text = all.toString(StandardCharsets.UTF_8);
                int headerEnd = text.indexOf("\r\n\r\n");
                if (headerEnd > 0) {
                    Long length = text.substring(0, headerEnd).lines()
                            .filter(l -> l.toLowerCase(Locale.ROOT).startsWith("content-length:"))
                            .map(l -> Long.parseLong(l.substring(15).strip())).findFirst().orElse(null);
                    if (length != null && all.size() >= headerEnd + 4 + length) {
                        break;
                    }
                }
            }
        } catch (SocketTimeoutException e) {
            // what arrived so far is the answer
        }
        return all.toString(StandardCharsets.UTF_8);
    }

    private String auth() {
        return "Authorization: Bearer " + tokens.get(Role.ADMIN) + "\r\n";
    }

    private static void assertApiError(RawReply r, int status) throws IOException {
        assertThat(r.status()).as(r.head() + "\n\n" + r.body()).isEqualTo(status);
        assertThat(r.head().toLowerCase(Locale.ROOT)).contains("content-type: application/json");
        assertThat(JSON.readTree(r.body()).get("error").asText()).as(r.body()).isNotEmpty();
        assertThat(JSON.readTree(r.body()).get("message").asText()).as(r.body()).isNotEmpty();
    }

    /** Percent-encoded bytes that are not UTF-8, in a path or a query, are a 400 and store nothing. */
    @Test
    void invalidUtf8InAPathOrQueryIs400() throws IOException {
        byte[] limit = "{\"permits\": 5, \"period\": \"1s\"}".getBytes(StandardCharsets.UTF_8);
        for (String name : List.of("qa%FF", "qa%ED%A0%80", "qa%C3%28", "qa%C0%AE", "qa%F4%90%80%80")) {
            RawReply put = send("PUT /api/rate-limits/kind/" + name + "?create=true HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + auth() + "Content-Type: application/json\r\nContent-Length: " + limit.length
                    + "\r\nConnection: close\r\n\r\n", limit);
            assertApiError(put, 400);
        }
        assertThat(docket.admin().rateLimits()).isEmpty();
        for (String query : List.of("kind=qa%FF", "queue=%ED%A0%80", "kind=%C3%28x", "state=%FF", "kind=%zz", "kind=%F")) {
            RawReply get = send("GET /api/jobs?" + query + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth()
                    + "Connection: close\r\n\r\n", new byte[0]);
            assertApiError(get, 400);
        }
        RawReply valid = send("GET /api/jobs?kind=caf%C3%A9 HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth()
                + "Connection: close\r\n\r\n", new byte[0]);
        assertThat(valid.status()).as(valid.body()).isEqualTo(200);
    }

    private String postJobHead(String framing) {
        return "POST /api/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n" + auth() + "Content-Type: application/json\r\n" + framing
                + "\r\n";
    }

    /** A chunked body that is not in chunks is a 400 with the API's error body, not a 500. */
    @Test
    void unframedChunkedBodyIs400() throws IOException {
        RawReply r = send(postJobHead("Transfer-Encoding: chunked\r\n"),
                "{\"kind\":\"k\",\"payload\":{}}".getBytes(StandardCharsets.UTF_8));

        assertApiError(r, 400);
        assertThat(r.millis()).isLessThan(BOUND_MILLIS);
        assertThat(liveAndFinishedJobs()).isZero();
    }

    /** A body shorter than its Content-Length is refused once the body read timeout passes, with a 408. */
    @Test
    void bodyShorterThanItsLengthIs408WithinTheBodyTimeout() throws IOException {
        RawReply r = send(postJobHead("Content-Length: 100\r\n"), "{\"kind\":\"k".getBytes(StandardCharsets.UTF_8));

        assertApiError(r, 408);
        assertThat(r.millis()).as("answered before the 30 s idle timeout").isLessThan(BOUND_MILLIS);
        assertThat(liveAndFinishedJobs()).isZero();
    }

    /**
     * A Content-Length over the limit is a 413 from the header alone: on a server whose body read
     * timeout is a minute, the answer still comes before any of the body was sent.
     */
    @Test
    void oversizedContentLengthIs413AtOnce() throws IOException {
        server.close();
        server = closeAfter(DocketServer.start(docket, tokenStore, DocketServer.Config.defaults().withPort(0)
                .withMaxBodyBytes(MAX_BODY).withBodyReadTimeout(java.time.Duration.ofMinutes(1))));

        RawReply r = send(postJobHead("Content-Length: 11534336\r\n"), new byte[0]);

        assertApiError(r, 413);
        assertThat(r.millis()).as("answered without waiting for the body: %s", r.body()).isLessThan(BOUND_MILLIS);
    }
}
