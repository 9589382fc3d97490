package dev.docket.internal.text;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The normalised signature of an error, so that one broken handler makes one dead-letter group
 * however many different ids, amounts and names its messages carry. Pure: the same text always
 * gives the same signature, on every node and in every version that keeps these rules.
 *
 * <p>From the first line of the error (the exception and its message; the stack trace is left out):
 * <ul>
 *   <li>the exception's package is dropped: {@code java.lang.IllegalStateException: x} reads
 *       {@code IllegalStateException: x};</li>
 *   <li>quoted values become {@code "?"}, {@code '?'} or {@code `?`} (a {@code '} inside a word, as
 *       in {@code can't}, is an apostrophe, not a quote);</li>
 *   <li>UUIDs become {@code <uuid>}; {@code 0x}-prefixed numbers and runs of 8 or more hex digits
 *       with at least one digit and one letter become {@code <hex>};</li>
 *   <li>words of 6 or more letters and digits that mix both become {@code <id>}
 *       ({@code cus_9aZk3LmQ}, {@code user42}); other numbers, including decimals and the digits
 *       inside shorter words, become {@code <n>} ({@code order 12345}, {@code 3.5 s}, {@code v2});</li>
 *   <li>runs of white space become one space; the result is cut to {@value #MAX_LENGTH} characters.</li>
 * </ul>
 * An error with no text has the signature {@value #EMPTY}.
 */
public final class ErrorSignature {

    /** The longest signature, in UTF-16 characters (never splitting a surrogate pair). */
    public static final int MAX_LENGTH = 200;
    /** The signature of an error without text. */
    public static final String EMPTY = "(no message)";

    /** Only this much of the first line is read: a signature never needs more. */
    private static final int MAX_INPUT = 4_000;
    private static final Pattern PACKAGE = Pattern.compile("^(?:[a-z_][a-z0-9_]*\\.)+(?=[A-Z])");
    private static final Pattern UUID = Pattern.compile(
            "\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12}");
    private static final int MIN_ID_LENGTH = 6;
    private static final int MIN_HEX_LENGTH = 8;

    private ErrorSignature() {
    }

    /** The signature of {@code error} (null reads as no text). */
    public static String of(String error) {
        String line = firstLine(error);
        line = PACKAGE.matcher(line).replaceFirst("");
        StringBuilder out = new StringBuilder(Math.min(line.length(), MAX_LENGTH + 16));
        Matcher uuid = UUID.matcher(line);
        int i = 0;
        while (i < line.length() && out.length() <= MAX_LENGTH) {
            char c = line.charAt(i);
            if (isQuote(line, i)) {
                int close = closingQuote(line, i);
                if (close > 0) {
                    out.append(c).append('?').append(c);
                    i = close + 1;
                    continue;
                }
            }
            if (isWordChar(c)) {
                i = word(line, i, uuid, out);
            } else if (Character.isWhitespace(c)) {
                if (!out.isEmpty() && out.charAt(out.length() - 1) != ' ') {
                    out.append(' ');
                }
                i++;
            } else {
                out.append(c);
                i++;
            }
        }
        return finish(out);
    }

    private static String firstLine(String error) {
        if (error == null) {
            return "";
        }
        String text = error.length() > MAX_INPUT ? error.substring(0, MAX_INPUT) : error;
        int end = text.length();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') {
                end = i;
                break;
            }
        }
        return text.substring(0, end).strip();
    }

    /** A {@code "} or {@code `} always opens a quote; a {@code '} only where no word goes on before it. */
    private static boolean isQuote(String line, int i) {
        char c = line.charAt(i);
        if (c == '"' || c == '`') {
            return true;
        }
        return c == '\'' && (i == 0 || !isWordChar(line.charAt(i - 1)));
    }

    /** Where the quote opened at {@code open} closes, or -1; a {@code '} closes only where no word goes on after it. */
    private static int closingQuote(String line, int open) {
        char q = line.charAt(open);
        for (int j = open + 1; j < line.length(); j++) {
            if (line.charAt(j) == q && (q != '\'' || j + 1 == line.length() || !isWordChar(line.charAt(j + 1)))) {
                return j;
            }
        }
        return -1;
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /** Appends the word starting at {@code start}, normalised; returns where it ends. */
    private static int word(String line, int start, Matcher uuid, StringBuilder out) {
        uuid.region(start, line.length());
        if (uuid.lookingAt() && (uuid.end() == line.length() || !isWordChar(line.charAt(uuid.end())))) {
            out.append("<uuid>");
            return uuid.end();
        }
        int end = start;
        boolean digits = false;
        boolean letters = false;
        boolean hex = true;
        while (end < line.length() && isWordChar(line.charAt(end))) {
            char c = line.charAt(end);
            digits |= Character.isDigit(c);
            letters |= Character.isLetter(c);
            hex &= Character.digit(c, 16) >= 0;
            end++;
        }
        String word = line.substring(start, end);
        if (!digits) {
            out.append(word);
        } else if (isHexLiteral(word) || hex && letters && word.length() >= MIN_HEX_LENGTH) {
            out.append("<hex>");
        } else if (letters && word.length() >= MIN_ID_LENGTH) {
            out.append("<id>");
        } else if (!letters) {
            out.append("<n>");
            return decimals(line, end);
        } else {
            out.append(word.replaceAll("\\d+", "<n>"));
        }
        return end;
    }

    private static boolean isHexLiteral(String word) {
        if (word.length() < 3 || word.charAt(0) != '0' || (word.charAt(1) != 'x' && word.charAt(1) != 'X')) {
            return false;
        }
        for (int i = 2; i < word.length(); i++) {
            if (Character.digit(word.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    /** After a number, a fraction ({@code .5}) belongs to it. */
    private static int decimals(String line, int end) {
        if (end + 1 < line.length() && line.charAt(end) == '.' && Character.isDigit(line.charAt(end + 1))) {
            int j = end + 1;
            while (j < line.length() && Character.isDigit(line.charAt(j))) {
                j++;
            }
            return j;
        }
        return end;
    }

    private static String finish(StringBuilder out) {
        String s = out.toString().strip();
        if (s.isEmpty()) {
            return EMPTY;
        }
        if (s.length() > MAX_LENGTH) {
            int cut = Character.isHighSurrogate(s.charAt(MAX_LENGTH - 1)) ? MAX_LENGTH - 1 : MAX_LENGTH;
            s = s.substring(0, cut).strip();
        }
        return s;
    }
}
