package dev.docket.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;

/** Reads request bodies as JSON, within the size limit, with errors that say what is wrong. */
public final class Bodies {

    private final ObjectMapper mapper;
    private final long maxBytes;

    public Bodies(ObjectMapper mapper, long maxBytes) {
        this.mapper = mapper;
        this.maxBytes = maxBytes;
    }

    public long maxBytes() {
        return maxBytes;
    }

    public JsonNode json(Context ctx) {
        String type = ctx.contentType();
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
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
        try {
            return mapper.readTree(body);
        } catch (StreamConstraintsException e) {
            throw ApiException.badRequest("the body is nested too deeply or has a number or string that is too long");
        } catch (JsonProcessingException e) {
            // Jackson's own message may quote the body; say only where it broke.
            throw ApiException.badRequest("the body is not valid JSON" + (e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")"));
        } catch (java.io.IOException e) {
            throw ApiException.badRequest("the body could not be read");
        }
    }
}
