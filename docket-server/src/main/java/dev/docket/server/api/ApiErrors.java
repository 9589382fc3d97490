package dev.docket.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.docket.EncryptedPayloadException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How every error leaves the server: JSON {@code {"error": code, "message": text}} with one of the
 * documented codes ({@link #CODES}, listed in the OpenAPI document and the README), never a stack
 * trace. Client input gets a 4xx; only a failure on the server's side (the database unreachable)
 * gets a 5xx.
 */
public final class ApiErrors {

    private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);
    private static final ObjectMapper PLAIN = new ObjectMapper();

    /** Every error code the server answers with. */
    public static final List<String> CODES = List.of("bad_request", "unauthorized", "forbidden", "csrf", "not_found",
            "method_not_allowed", "request_timeout", "conflict", "payload_too_large", "unsupported_media_type", "uri_too_long",
            "headers_too_large", "unserved_kind", "payload_encryption", "not_ready", "unavailable");

    /** The body of every error response. */
    public record Body(String error, String message) {
    }

    private ApiErrors() {
    }

    /** The documented code for an HTTP status that no handler named more precisely. */
    public static String codeFor(int status) {
        return switch (status) {
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 408 -> "request_timeout";
            case 409 -> "conflict";
            case 413 -> "payload_too_large";
            case 414 -> "uri_too_long";
            case 415 -> "unsupported_media_type";
            case 431 -> "headers_too_large";
            default -> status >= 500 ? "unavailable" : "bad_request";
        };
    }

    /** Maps exceptions and unmatched requests to error bodies; registered once on the app. */
    public static void register(Javalin app) {
        app.exception(ApiException.class, (e, ctx) -> write(ctx, e.status(), e.code(), e.getMessage()));
        app.exception(HttpResponseException.class, (e, ctx) -> {
            switch (e.getStatus()) {
                case 404 -> write(ctx, 404, "not_found", "no route " + ctx.method() + " " + ctx.path());
                case 405 -> write(ctx, 405, "method_not_allowed", ctx.method() + " is not allowed on " + ctx.path());
                default -> write(ctx, e.getStatus(), codeFor(e.getStatus()), e.getMessage());
            }
        });
        app.exception(IllegalArgumentException.class, (e, ctx) -> write(ctx, 400, "bad_request", e.getMessage()));
        // A job of an encrypted kind this server cannot encrypt or read (no keys, or not the one needed): refused,
        // never stored in clear. The message names the key id and job, never a payload.
        app.exception(EncryptedPayloadException.class, (e, ctx) -> write(ctx, 422, "payload_encryption", e.getMessage()));
        app.exception(Exception.class, (e, ctx) -> {
            log.warn("docket: {} {} failed: {}", ctx.method(), ctx.path(), withCauses(e));
            write(ctx, 503, "unavailable", "the request could not be served (database unreachable?); try again");
        });
        app.error(404, ctx -> {
            if (ctx.result() == null || ctx.result().isEmpty()) {
                write(ctx, 404, "not_found", "no route " + ctx.method() + " " + ctx.path());
            }
        });
        app.error(405, ctx -> write(ctx, 405, "method_not_allowed", ctx.method() + " is not allowed on " + ctx.path()));
    }

    /**
     * An exception with the causes it wraps and their SQLSTATEs, on one line: a pool's timeout carries
     * the database's reason for refusing a connection only as its cause.
     */
    static String withCauses(Throwable e) {
        StringBuilder b = new StringBuilder();
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable t = e; t != null && seen.add(t) && seen.size() <= 6; t = t.getCause()) {
            String text = t.toString();
            if (b.indexOf(text) >= 0) {
                continue;
            }
            b.append(b.isEmpty() ? "" : "; caused by ").append(text);
            if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null) {
                b.append(" [SQLSTATE ").append(sql.getSQLState()).append(']');
            }
        }
        return b.toString().replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    /** Answers with an error body; a null message repeats the code. */
    public static void write(Context ctx, int status, String code, String message) {
        ctx.status(status).json(new Body(code, message == null ? code : message));
    }

    /** An error body as JSON text, for the places outside Javalin (Jetty's error handler, servlet filters). */
    public static String json(int status, String message) {
        try {
            return PLAIN.writeValueAsString(new Body(codeFor(status), message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an error body of two strings cannot fail to serialize", e);
        }
    }
}
