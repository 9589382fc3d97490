package dev.docket.internal.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON Merge Patch (RFC 7386): the transformation Docket applies to dead jobs' payloads before
 * replaying them. A patch object sets the fields it names, removes those it sets to {@code null},
 * and merges nested objects the same way; anything else (an array, a string, a number) replaces the
 * target whole. Applying a patch twice gives what applying it once gave, so a repair repeated after
 * an interruption does no harm. Pure: the target is never modified.
 */
public final class MergePatch {

    private MergePatch() {
    }

    /** {@code target} with {@code patch} applied (RFC 7386, section 2); {@code target} may be null (absent). */
    public static JsonNode apply(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject() ? ((ObjectNode) target).deepCopy()
                : JsonNodeFactory.instance.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (field.getValue().isNull()) {
                result.remove(field.getKey());
            } else {
                result.set(field.getKey(), apply(result.get(field.getKey()), field.getValue()));
            }
        }
        return result;
    }
}
