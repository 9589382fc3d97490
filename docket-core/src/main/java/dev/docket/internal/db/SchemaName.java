package dev.docket.internal.db;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The configured schema name: the one identifier Docket puts into SQL text. It is validated
 * once here, at configuration time, so every query can embed it quoted without escaping.
 */
public record SchemaName(String name) {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    public SchemaName {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("schema must be a lower-case SQL identifier of 1 to 63 characters "
                    + "(letters, digits, underscore; not starting with a digit), was "
                    + (name == null ? "null" : "'" + abbreviate(name) + "'"));
        }
        if (name.startsWith("pg_")) {
            throw new IllegalArgumentException("schema must not start with 'pg_' (reserved by PostgreSQL), was '" + name + "'");
        }
    }

    /** The schema name as it appears in SQL text, double-quoted. */
    public String quoted() {
        return '"' + name + '"';
    }

    /**
     * The LISTEN/NOTIFY channel on which this schema's enqueues wake idle workers. Channel names are
     * identifiers (at most 63 bytes): a long schema name is cut and suffixed with a hash of the whole.
     */
    public String channel() {
        String channel = "docket." + name;
        if (channel.length() <= 63) {
            return channel;
        }
        return "docket." + name.substring(0, 47) + "." + String.format("%08x", name.hashCode());
    }

    /**
     * Substitutes this schema into a statement or a migration script: {@code {{schema}}} (quoted),
     * {@code {{schema_name}}} (bare) and {@code {{channel}}}. Nothing else is ever put into SQL text.
     */
    public String bind(String text) {
        return text.replace("{{schema}}", quoted())
                .replace("{{schema_name}}", name)
                .replace("{{channel}}", channel());
    }

    private static String abbreviate(String s) {
        String clean = s.replaceAll("\\p{Cntrl}", "?");
        return clean.length() <= 40 ? clean : clean.substring(0, 40).toLowerCase(Locale.ROOT) + "...";
    }
}
