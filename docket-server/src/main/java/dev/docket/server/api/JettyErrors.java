package dev.docket.server.api;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Answers the requests Jetty rejects before they reach a route (an ambiguous or malformed URI,
 * headers too large) in the API's shape, {@code {error, message}} as JSON with a documented code,
 * with the same security headers, instead of Jetty's HTML error page.
 */
public final class JettyErrors extends ErrorHandler {

    public JettyErrors() {
        setShowStacks(false);
        setShowServlet(false);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, "application/json");
        SecurityHeaders.HEADERS.forEach(fields::put);
        return ByteBuffer.wrap(body(status, reason).getBytes(StandardCharsets.UTF_8));
    }

    @Override
    protected void generateAcceptableResponse(Request baseRequest, HttpServletRequest request,
                                              HttpServletResponse response, int code, String message) throws IOException {
        baseRequest.setHandled(true);
        response.setContentType("application/json");
        SecurityHeaders.HEADERS.forEach(response::setHeader);
        byte[] body = body(code, message).getBytes(StandardCharsets.UTF_8);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    static String body(int status, String reason) {
        return ApiErrors.json(status, "the request was rejected" + (reason == null || reason.isBlank() ? "" : ": " + reason));
    }
}
