package dev.docket.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * Reads request bodies as JSON, within the size limit, with errors that say what is wrong.
 *
 * @param reader   the mapper that reads them, normally {@link #mapper()}
 * @param maxBytes the largest body read; a larger one is a 413
 */
public record JsonBodies(ObjectMapper reader, long maxBytes) {

    /**
     * The server's JSON mapper, for requests and responses. Exact decimals: a payload's numbers reach
     * the database as sent (1e400 stays 1E+400, not "Infinity"). A duplicate field name is an error:
     * {@code jsonb} (and a record) would silently keep one of the values. Nothing may follow the
     * value. No coercion between JSON types: {@code "5"} is not a number, {@code 1.5} not a whole
     * number, {@code 5} not a string, and a field a record does not have is an error.
     */
    public static ObjectMapper mapper() {
        ObjectMapper mapper = JsonMapper.builder().addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .build();
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    /** The body as a JSON tree. */
    public JsonNode json(Context ctx) {
        byte[] body = bytes(ctx);
        try {
            return reader.readTree(body);
        } catch (IOException e) {
            throw unreadable(e);
        }
    }

    /**
     * The body mapped to {@code type} (a record). A field of the wrong type, or one the record does
     * not have, is a 400 naming the field ({@code jobs[2].priority must be a whole number}).
     *
     * @param shape what to send instead, for the message when the body as a whole has the wrong shape
     */
    public <T> T read(Context ctx, Class<T> type, String shape) {
        byte[] body = bytes(ctx);
        try {
            T value = reader.readValue(body, type);
            if (value == null) {
                throw ApiException.badRequest(shape);
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw ApiException.badRequest("unknown field " + path(e) + "; fields are " + e.getKnownPropertyIds());
        } catch (JsonMappingException e) {
            // Databind wraps what the parser found (a duplicate name, a nesting limit) with the path.
            if (e.getCause() instanceof IOException parsing && !(e.getCause() instanceof InputCoercionException)) {
                throw unreadable(parsing);
            }
            if (e.getPath().isEmpty()) {
                throw ApiException.badRequest(shape);
            }
            throw ApiException.badRequest(path(e) + " must be " + expected(e, field(e)));
        } catch (IOException e) {
            throw unreadable(e);
        }
    }

    /** Where in the body: {@code jobs[2].priority}; names are clipped and shown without control characters. */
    private static String path(JsonMappingException e) {
        StringBuilder out = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                out.append(out.isEmpty() ? "" : ".").append(JobRequests.clip(r.getFieldName()));
            } else if (r.getIndex() >= 0) {
                out.append('[').append(r.getIndex()).append(']');
            }
        }
        return "'" + out + "'";
    }

    /**
     * The whole-number fields whose range is narrower than an int's, as the rules that check them
     * say: a wrong type or an overflow quotes the range the field really takes.
     */
    private static final java.util.Map<String, String> RANGES = java.util.Map.of(
            "priority", Short.MIN_VALUE + " to " + Short.MAX_VALUE,
            "permits", "1 to " + dev.docket.RateLimit.MAX_PERMITS,
            "ratePerSecond", "1 to " + DlqApi.MAX_RATE,
            "maxAttempts", "1 to " + Integer.MAX_VALUE);

    /** The name of the innermost field the error is about, or {@code null}. */
    private static String field(JsonMappingException e) {
        List<JsonMappingException.Reference> path = e.getPath();
        for (int i = path.size() - 1; i >= 0; i--) {
            if (path.get(i).getFieldName() != null) {
                return path.get(i).getFieldName();
            }
        }
        return null;
    }

    private static String expected(JsonMappingException e, String field) {
        Class<?> type = e instanceof MismatchedInputException m ? m.getTargetType() : null;
        if (e.getCause() instanceof InputCoercionException || type == Integer.class || type == int.class
                || type == Short.class || type == short.class) {
            String range = field == null ? null : RANGES.get(field);
            return "a whole number from " + (range != null ? range : Integer.MIN_VALUE + " to " + Integer.MAX_VALUE);
        }
        if (type == null) {
            return "a value of the right type";
        }
        if (type == String.class) {
            return "a string";
        }
        if (java.util.Map.class.isAssignableFrom(type)) {
            return "an object of strings";
        }
        if (java.util.Collection.class.isAssignableFrom(type)) {
            return "an array";
        }
        return "an object";
    }

    private byte[] bytes(Context ctx) {
        String type = ctx.contentType();
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new ApiException(415, "unsupported_media_type", "send the body as application/json");
        }
        byte[] body = ctx.bodyAsBytes();
        if (body.length > maxBytes) {
            throw new ApiException(413, "payload_too_large", "the body is " + body.length
                    + " bytes, over the limit of " + maxBytes);
        }
        if (body.length == 0) {
            throw ApiException.badRequest("the body is empty; send a JSON object");
        }
        return body;
    }

    /** Jackson's own message may quote the body: say only what and where it broke. */
    private static ApiException unreadable(IOException e) {
        if (e instanceof StreamConstraintsException) {
            return ApiException.badRequest("the body is nested too deeply or has a number or string that is too long");
        }
        if (e instanceof JsonProcessingException p) {
            String where = p.getLocation() == null ? ""
                    : " (line " + p.getLocation().getLineNr() + ", column " + p.getLocation().getColumnNr() + ")";
            boolean duplicate = p.getOriginalMessage() != null && p.getOriginalMessage().startsWith("Duplicate field");
            return ApiException.badRequest(duplicate
                    ? "the body has a field name twice" + where + "; each name may appear once in an object"
                    : "the body is not valid JSON" + where);
        }
        return ApiException.badRequest("the body could not be read");
    }
}
