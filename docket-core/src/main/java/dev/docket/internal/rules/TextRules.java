package dev.docket.internal.rules;

/**
 * The one place that decides which text Docket stores. Every text field a caller gives (kind, queue,
 * unique key, tenant, metadata keys and values, filters) passes through here, so nothing reaches
 * PostgreSQL that it would store differently from what was sent: PgJDBC silently replaces a lone
 * UTF-16 surrogate with {@code ?}, which made two different unique keys collide, and {@code text}
 * cannot hold NUL at all.
 *
 * <p>Two rules:
 * <ul>
 *   <li><b>text</b>: valid Unicode, i.e. no NUL and no unpaired UTF-16 surrogate;</li>
 *   <li><b>names</b> (kinds; queue names are stricter still): text of printable characters only,
 *       i.e. none of the general categories control (Cc), format (Cf: zero-width characters,
 *       bidirectional overrides, the byte-order mark), line or paragraph separator (Zl, Zp), space
 *       separator other than the plain space U+0020 (Zs), surrogate (Cs) or unassigned (Cn, by the
 *       running JDK's Unicode tables). A name that renders as something it is not (an invisible
 *       character, right-to-left text reversing the rest of a table row) is refused rather than
 *       shown misleadingly in the dashboard and the CLI.</li>
 * </ul>
 * The SQL function {@code enqueue} applies the name rule too (migration V007). Callers own their
 * messages, which name the field and the rule and quote the value only as
 * {@link #describe} shows it.
 */
public final class TextRules {

    private TextRules() {
    }

    /**
     * Whether {@code value} is text PostgreSQL stores exactly as given: valid Unicode (no unpaired
     * UTF-16 surrogate) without NUL. {@code null} is not text.
     */
    public static boolean isText(String value) {
        if (value == null) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == 0) {
                return false;
            }
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code value} is a printable name (see the class description); {@code null} is not. */
    public static boolean isName(String value) {
        if (value == null) {
            return false;
        }
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            if (!isPrintable(cp)) {
                return false;
            }
            i += Character.charCount(cp);
        }
        return true;
    }

    /** Whether {@code codePoint} may appear in a name: see the class description. */
    public static boolean isPrintable(int codePoint) {
        return switch (Character.getType(codePoint)) {
            case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                 Character.SURROGATE, Character.UNASSIGNED -> false;
            case Character.SPACE_SEPARATOR -> codePoint == ' ';
            default -> true;
        };
    }

    /** The value quoted for an error message: clipped, with anything that is not printable shown as {@code ?}. */
    public static String describe(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder shown = new StringBuilder("'");
        value.substring(0, Math.min(40, value.length())).codePoints()
                .forEach(cp -> shown.appendCodePoint(isPrintable(cp) ? cp : '?'));
        if (value.length() > 40) {
            shown.append("... (").append(value.length()).append(" characters)");
        }
        return shown.append('\'').toString();
    }
}
