package dev.docket.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Locale;

/** Reads request bodies as JSON, within the size limit, with errors that say what is wrong. */
public final class Bodies {

    private final ObjectMapper mapper;
    private final long maxBytes;

    public Bodies(ObjectMapper mapper, long maxBytes) {
        this.mapper = mapper;
        this.maxBytes = maxBytes;
    }

    /**
     * The server's JSON mapper, for requests and responses. Exact decimals: a payload's numbers reach
     * the database as sent (1e400 stays 1E+400, not "Infinity"). A duplicate field name is an error:
     * {@code jsonb} (and a record) would silently keep one of the values. Nothing may follow the
     * value.
     */
    public static ObjectMapper mapper() {
        return JsonMapper.builder().addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** The body as a JSON tree. */
    public JsonNode json(Context ctx) {
        byte[] body = bytes(ctx);
        try {
            return mapper.readTree(body);
        } catch (IOException e) {
            throw unreadable(e);
        }
    }

    /**
     * The body mapped to {@code type} (a record).
     *
     * @param shape what to send instead, for the message when the body has the wrong shape
     */
    public <T> T read(Context ctx, Class<T> type, String shape) {
        byte[] body = bytes(ctx);
        try {
            T value = mapper.readValue(body, type);
            if (value == null) {
                throw ApiException.badRequest(shape);
            }
            return value;
        } catch (MismatchedInputException e) {
            throw ApiException.badRequest(shape);
        } catch (IOException e) {
            throw unreadable(e);
        }
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
