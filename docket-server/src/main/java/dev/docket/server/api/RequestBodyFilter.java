package dev.docket.server.api;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;

/**
 * Reads a request's body before any route sees it, so that framing the client got wrong is the
 * client's error, answered at once:
 * <ul>
 *   <li>a {@code Content-Length} over the limit is a 413 from the header alone, nothing read;</li>
 *   <li>a body that stops arriving (shorter than its {@code Content-Length}, an unfinished chunked
 *       body) is a 408 once none of it arrived for the body read timeout, not a 500 after the 30 s
 *       connection idle timeout;</li>
 *   <li>a body that is not framed as it says (chunked without chunks) is a 400, not a 500;</li>
 *   <li>a chunked body that grows over the limit is a 413.</li>
 * </ul>
 * Each of these closes the connection: what follows on it cannot be told from the broken body.
 * Routes then read the buffered body (at most the limit, which bounds the memory this takes).
 */
public final class RequestBodyFilter implements Filter {

    private final long maxBytes;
    private final Duration readTimeout;

    /**
     * @param maxBytes    the largest body accepted, as {@code DocketServer.Config.maxBodyBytes}
     * @param readTimeout how long the body may make no progress before it is refused with 408
     */
    public RequestBodyFilter(long maxBytes, Duration readTimeout) {
        this.maxBytes = maxBytes;
        this.readTimeout = readTimeout;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request instanceof HttpServletRequest http) || !(response instanceof HttpServletResponse out)
                || !hasBody(http)) {
            chain.doFilter(request, response);
            return;
        }
        long declared = http.getContentLengthLong();
        if (declared > maxBytes) {
            refuse(out, 413, "the body is " + declared + " bytes by its Content-Length, over the limit of " + maxBytes);
            return;
        }
        byte[] body;
        try {
            body = read(http);
        } catch (IOException | RuntimeException e) {
            if (isTimeout(e)) {
                refuse(out, 408, "the body did not arrive: none of it came for " + readTimeout.toMillis()
                        + " ms (is its Content-Length or chunked framing right?)");
            } else {
                refuse(out, 400, "the body could not be read: its framing is malformed or the connection ended early");
            }
            return;
        }
        if (body == null) {
            refuse(out, 413, "the body is over the limit of " + maxBytes + " bytes");
            return;
        }
        chain.doFilter(new Buffered(http, body), response);
    }

    private static boolean hasBody(HttpServletRequest http) {
        return http.getContentLengthLong() > 0 || http.getHeader("Transfer-Encoding") != null;
    }

    /** The whole body, or {@code null} when it is over the limit; blocking reads time out after the read timeout. */
    private byte[] read(HttpServletRequest http) throws IOException {
        Request base = Request.getBaseRequest(http);
        EndPoint endPoint = base == null ? null : base.getHttpChannel().getEndPoint();
        long idleTimeout = endPoint == null ? 0 : endPoint.getIdleTimeout();
        if (endPoint != null) {
            endPoint.setIdleTimeout(readTimeout.toMillis());
        }
        try {
            InputStream in = http.getInputStream();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                body.write(buffer, 0, n);
                if (body.size() > maxBytes) {
                    return null;
                }
            }
            return body.toByteArray();
        } finally {
            if (endPoint != null) {
                endPoint.setIdleTimeout(idleTimeout);
            }
        }
    }

    private static boolean isTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TimeoutException || t instanceof java.net.SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static void refuse(HttpServletResponse out, int status, String message) throws IOException {
        out.setStatus(status);
        out.setContentType("application/json");
        out.setHeader("Connection", "close");
        SecurityHeaders.HEADERS.forEach(out::setHeader);
        byte[] body = ApiErrors.json(status, message).getBytes(StandardCharsets.UTF_8);
        out.setContentLength(body.length);
        out.getOutputStream().write(body);
        // Sent now: the client learns at once, whatever Jetty does with a body that never arrives.
        out.flushBuffer();
    }

    /** The request with its body read already. */
    private static final class Buffered extends HttpServletRequestWrapper {

        private final byte[] body;

        Buffered(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body is read already; read it blocking");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            String encoding = getCharacterEncoding();
            return new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body),
                    encoding == null ? StandardCharsets.UTF_8 : java.nio.charset.Charset.forName(encoding)));
        }
    }
}
