package dev.docket.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Map;

/**
 * Rejects JSON that parses but that PostgreSQL's {@code jsonb} cannot store as sent: numbers that
 * are not finite or beyond {@code numeric}'s range, and text with a NUL or a lone UTF-16 surrogate
 * (which would otherwise be silently replaced). Messages name the problem, never the value.
 */
public final class PayloadCheck {

    /** {@code numeric} holds up to 131072 digits before the decimal point and 16383 after. */
    private static final int MAX_INTEGER_DIGITS = 131_072;
    private static final int MAX_FRACTION_DIGITS = 16_383;

    private PayloadCheck() {
    }

    /**
     * Walks the tree recursively, as the serialization that stores the payload does; the parser that
     * built it bounds its depth (Jackson's limit, 1000 levels).
     *
     * @throws IllegalArgumentException saying what is wrong (without the offending value)
     */
    public static void check(JsonNode payload) {
        if (payload.isObject()) {
            for (Map.Entry<String, JsonNode> field : payload.properties()) {
                checkText(field.getKey(), "a field name");
                check(field.getValue());
            }
        } else if (payload.isArray()) {
            for (JsonNode element : payload) {
                check(element);
            }
        } else if (payload.isTextual()) {
            checkText(payload.textValue(), "a string");
        } else if (payload.isFloatingPointNumber()) {
            checkNumber(payload);
        }
    }

    private static void checkNumber(JsonNode node) {
        if (node.isBigDecimal()) {
            BigDecimal d = node.decimalValue();
            if (d.precision() - d.scale() > MAX_INTEGER_DIGITS || d.scale() > MAX_FRACTION_DIGITS) {
                throw new IllegalArgumentException("payload has a number beyond PostgreSQL's numeric range");
            }
        } else if (!Double.isFinite(node.doubleValue())) {
            throw new IllegalArgumentException("payload has a number that is not finite");
        }
    }

    private static void checkText(String s, String what) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                throw new IllegalArgumentException("payload has " + what + " with a NUL character (PostgreSQL jsonb rejects it)");
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("payload has " + what + " with an unpaired UTF-16 surrogate "
                        + "(not valid Unicode)");
            }
        }
    }
}
