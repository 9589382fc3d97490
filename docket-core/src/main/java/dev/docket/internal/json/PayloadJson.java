package dev.docket.internal.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.docket.internal.rules.TextRules;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/**
 * Reads JSON text given by an operator (a repaired payload, a merge patch) and payloads as stored,
 * exactly: numbers keep their digits ({@code 1.10} stays {@code 1.10}), a field name twice in one
 * object is refused ({@code jsonb} would keep one of the values silently), nothing may follow the
 * value, and every string and field name must be text PostgreSQL stores as given (no NUL, no unpaired
 * surrogate). Messages say what and where, never the content.
 */
public final class PayloadJson {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    private PayloadJson() {
    }

    /**
     * {@code text} as a JSON tree.
     *
     * @param what names the text in messages ("payload", "mergePatch")
     * @throws IllegalArgumentException if it is null, not JSON, has a field name twice or text that is not valid
     */
    public static JsonNode parse(String text, String what) {
        if (text == null) {
            throw new IllegalArgumentException(what + " must be JSON text, was null");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            boolean duplicate = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field");
            throw new IllegalArgumentException(what + (duplicate ? " has a field name twice" : " is not valid JSON") + where);
        }
        if (node == null || node.isMissingNode()) {
            throw new IllegalArgumentException(what + " is empty; give a JSON value");
        }
        checkText(node, what);
        return node;
    }

    /** The tree as compact JSON text. */
    public static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }

    private static void checkText(JsonNode root, String what) {
        Deque<JsonNode> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            JsonNode node = todo.pop();
            if (node.isObject()) {
                for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = it.next();
                    if (!TextRules.isText(field.getKey())) {
                        throw new IllegalArgumentException(what + " has a field name with a NUL character or an "
                                + "unpaired UTF-16 surrogate");
                    }
                    todo.push(field.getValue());
                }
            } else if (node.isArray()) {
                node.forEach(todo::push);
            } else if (node.isTextual() && !TextRules.isText(node.textValue())) {
                throw new IllegalArgumentException(what + " has a string with a NUL character or an unpaired UTF-16 "
                        + "surrogate");
            }
        }
    }
}
