package dev.docket.internal.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Maps payloads to and from JSON. Errors name the type and the problem, never the payload's content.
 */
public final class PayloadCodec {

    /** A {@code \u0000} escape that is not itself escaped (an even run of backslashes before it). */
    private static final Pattern ESCAPED_NUL = Pattern.compile("(?:^|[^\\\\])(?:\\\\\\\\)*\\\\u0000");

    private final ObjectMapper mapper;
    private final int maxBytes;

    public PayloadCodec(ObjectMapper mapper, int maxBytes) {
        this.mapper = mapper;
        this.maxBytes = maxBytes;
    }

    /**
     * Jackson with Java time support, ISO dates, and unknown properties ignored, so that a producer
     * that adds a field does not break workers that do not know it yet.
     */
    public static ObjectMapper defaultMapper() {
        return new ObjectMapper()
                .registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    public ObjectMapper mapper() {
        return mapper;
    }

    /** The payload as JSON text; {@code null} becomes {@code {}}. Rejects payloads over the size limit. */
    public String toJson(Object payload) {
        String text;
        try {
            if (payload == null) {
                text = "{}";
            } else if (payload instanceof JsonNode node) {
                text = mapper.writeValueAsString(node);
            } else {
                text = mapper.writeValueAsString(payload);
            }
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("payload of type " + payload.getClass().getName()
                    + " cannot be written as JSON (" + e.getClass().getSimpleName() + ")");
        }
        if (text.contains("u0000") && ESCAPED_NUL.matcher(text).find()) {
            throw new IllegalArgumentException("payload must not contain NUL characters (PostgreSQL jsonb rejects them)");
        }
        // A char takes at most 3 bytes in UTF-8 (a surrogate pair, 2 chars, takes 4): short texts need no count.
        if ((long) text.length() * 3 > maxBytes) {
            int size = text.getBytes(StandardCharsets.UTF_8).length;
            if (size > maxBytes) {
                throw new IllegalArgumentException("payload is " + size + " bytes of JSON, over the limit of "
                        + maxBytes + " bytes; store large data elsewhere and enqueue a reference to it");
            }
        }
        return text;
    }

    /** A job's metadata tags as a JSON object. */
    public String metadataJson(java.util.Map<String, String> metadata) {
        if (metadata.isEmpty()) {
            return "{}";
        }
        try {
            return mapper.writeValueAsString(metadata);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("metadata cannot be written as JSON (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** Reads stored payload JSON as a tree, for upcasters. */
    public JsonNode readTree(String json) {
        try {
            return mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("payload is not readable JSON (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** Maps an (upcast) payload tree to {@code type}; errors as for {@link #fromJson}. */
    public <T> T fromTree(JsonNode tree, Class<T> type) {
        try {
            return mapper.treeToValue(tree, type);
        } catch (JsonProcessingException e) {
            throw mappingError(e, type);
        }
    }

    /**
     * Jackson's messages quote the offending values, and its path names map keys, which are payload
     * data too: the error keeps only the type, bean field names and array indexes.
     */
    private static IllegalArgumentException mappingError(JsonProcessingException e, Class<?> type) {
        String where = e instanceof JsonMappingException m && !m.getPath().isEmpty() ? " at " + path(m) : "";
        return new IllegalArgumentException("payload does not map to " + type.getName() + where
                + " (" + e.getClass().getSimpleName() + ")");
    }

    private static String path(JsonMappingException e) {
        StringBuilder out = new StringBuilder("$");
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            } else if (ref.getFieldName() != null && !(ref.getFrom() instanceof java.util.Map<?, ?>)) {
                out.append('.').append(ref.getFieldName());
            } else {
                out.append("[?]");
            }
        }
        return out.toString();
    }

    /** Reads a stored payload as {@code type}; the exception says why it does not fit, without its content. */
    public <T> T fromJson(String json, Class<T> type) {
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw mappingError(e, type);
        }
    }
}
