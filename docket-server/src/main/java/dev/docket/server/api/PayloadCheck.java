package dev.docket.server.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;

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

    /** @throws IllegalArgumentException saying what is wrong (without the offending value) */
    public static void check(JsonNode payload) {
        // The tree's own token stream visits every field name and value, however deep, without recursion.
        try (JsonParser tokens = payload.traverse()) {
            for (JsonToken token = tokens.nextToken(); token != null; token = tokens.nextToken()) {
                switch (token) {
                    case FIELD_NAME -> checkText(tokens.currentName(), "a field name");
                    case VALUE_STRING -> checkText(tokens.getText(), "a string");
                    case VALUE_NUMBER_FLOAT -> checkNumber(tokens);
                    default -> { }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a JSON tree in memory could not be read", e);
        }
    }

    private static void checkNumber(JsonParser number) throws IOException {
        if (number.getNumberType() == JsonParser.NumberType.BIG_DECIMAL) {
            BigDecimal d = number.getDecimalValue();
            if (d.precision() - d.scale() > MAX_INTEGER_DIGITS || d.scale() > MAX_FRACTION_DIGITS) {
                throw new IllegalArgumentException("payload has a number beyond PostgreSQL's numeric range");
            }
        } else if (!Double.isFinite(number.getDoubleValue())) {
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
