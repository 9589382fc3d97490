package dev.docket.server.api;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Refuses, with a 400 JSON error before anything routes it, a request whose path or query string
 * is not UTF-8 once percent-decoded ({@code /api/rate-limits/kind/qa%FF}, {@code ?kind=%ED%A0%80}) or
 * holds a malformed escape ({@code %zz}). Jetty and Javalin decode such bytes to U+FFFD, which a
 * route would then store or search for as if the client had sent it: text is kept exactly or refused,
 * here once for every route.
 */
public final class Utf8UrlFilter implements Filter {

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse out) {
            String problem = problem("path", http.getRequestURI());
            if (problem == null) {
                problem = problem("query string", http.getQueryString());
            }
            if (problem != null) {
                out.setStatus(400);
                out.setContentType("application/json");
                SecurityHeaders.HEADERS.forEach(out::setHeader);
                byte[] body = ApiErrors.json(400, problem).getBytes(StandardCharsets.UTF_8);
                out.setContentLength(body.length);
                out.getOutputStream().write(body);
                return;
            }
        }
        chain.doFilter(request, response);
    }

    /** Why {@code raw} (a path or query as sent, still percent-encoded) is refused, or {@code null}. */
    static String problem(String what, String raw) {
        if (raw == null) {
            return null;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
                if (lo < 0) {
                    return "the " + what + " holds a malformed percent-escape (% must be followed by two hex digits)";
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            } else if (c == '\uFFFD') {
                // Jetty already replaced a byte it could not decode: the client did not send this character.
                return "the " + what + " is not valid UTF-8";
            } else {
                byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                if (Character.isSurrogate(c)) {
                    return "the " + what + " is not valid UTF-8";
                }
                bytes.writeBytes(encoded);
            }
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray()));
            return null;
        } catch (CharacterCodingException e) {
            return "the " + what + " is not valid UTF-8 once percent-decoded";
        }
    }
}
