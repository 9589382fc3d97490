package dev.docket.server.api;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Refuses request paths with {@code .} or {@code ..} segments (also percent-encoded, or with
 * backslashes) with a 400 JSON error, before anything routes them. Jetty resolves
 * {@code /assets/../x} to {@code /x}, but Javalin's static-file lookup works on the raw path and
 * fails on it with a 500; no legitimate request has such a path.
 */
public final class DotSegmentFilter implements Filter {

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest http && response instanceof HttpServletResponse out
                && hasDotSegment(http.getRequestURI())) {
            out.setStatus(400);
            out.setContentType("application/json");
            SecurityHeaders.HEADERS.forEach(out::setHeader);
            byte[] body = ApiErrors.json(400, "the path must not contain . or .. segments").getBytes(StandardCharsets.UTF_8);
            out.setContentLength(body.length);
            out.getOutputStream().write(body);
            return;
        }
        chain.doFilter(request, response);
    }

    static boolean hasDotSegment(String rawPath) {
        if (rawPath == null) {
            return false;
        }
        String path = rawPath.toLowerCase(Locale.ROOT).replace("%2e", ".").replace("%2f", "/").replace("%5c", "/")
                .replace('\\', '/');
        for (String segment : path.split("/", -1)) {
            int semicolon = segment.indexOf(';');
            String name = semicolon < 0 ? segment : segment.substring(0, semicolon);
            if (name.equals(".") || name.equals("..")) {
                return true;
            }
        }
        return false;
    }
}
