package dev.docket.server.api;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Answers the requests Jetty rejects before they reach a route (an ambiguous or malformed URI,
 * headers too large) in the API's shape, {@code {error, message}} as JSON, with the same security
 * headers, instead of Jetty's HTML error page.
 */
public final class JettyErrors extends ErrorHandler {

    private final Map<String, String> headers;

    /** @param headers security headers to add to every error response */
    public JettyErrors(Map<String, String> headers) {
        this.headers = Map.copyOf(headers);
        setShowStacks(false);
        setShowServlet(false);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        headers.forEach(fields::put);
        return ByteBuffer.wrap(body(status, reason).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    protected void generateAcceptableResponse(Request baseRequest, HttpServletRequest request,
                                              HttpServletResponse response, int code, String message) throws IOException {
        baseRequest.setHandled(true);
        response.setContentType("application/json");
        headers.forEach(response::setHeader);
        byte[] body = body(code, message).getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    static String body(int status, String reason) {
        String code = switch (status) {
            case 400 -> "bad_request";
            case 404 -> "not_found";
            case 413 -> "payload_too_large";
            case 414 -> "uri_too_long";
            case 431 -> "headers_too_large";
            default -> "http_" + status;
        };
        String message = "the request was rejected" + (reason == null || reason.isBlank() ? "" : ": " + reason);
        return "{\"error\":\"" + code + "\",\"message\":\"" + escape(message) + "\"}";
    }

    private static String escape(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
