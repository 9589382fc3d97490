package dev.docket.internal.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Docket's SQL statements, read once per JVM from one resource file per table in
 * {@code dev/docket/sql/} and bound to one schema. A file is a list of blocks, each headed by
 * {@code -- name: tableVerb} (a statement) or {@code -- fragment: name} (text that statements of
 * any file include as {@code {{name}}}); other lines that start with {@code --} are comments and are
 * left out of the SQL. The only other placeholders are the schema's ({@link SchemaName#bind}).
 */
final class Statements {

    /** The files, each with the prefix of its blocks' names: named by table, then verb. */
    private static final Map<String, String> FILES = Map.ofEntries(Map.entry("job", "job"),
            Map.entry("job_count", "jobCount"), Map.entry("job_history", "history"), Map.entry("dead_job", "deadJob"),
            Map.entry("queue", "queue"),
            Map.entry("leader", "leader"), Map.entry("cron_slot", "cronSlot"), Map.entry("unique_key", "uniqueKey"),
            Map.entry("stats", "stats"), Map.entry("schema", "schema"), Map.entry("worker", "worker"),
            Map.entry("slo", "slo"), Map.entry("doctor", "doctor"), Map.entry("explain", "explain"),
            Map.entry("sequence", "sequence"),
            Map.entry("rate_limit", "rateLimit"), Map.entry("dependency", "dependency"), Map.entry("workflow", "workflow"),
            Map.entry("signal", "signal"), Map.entry("schedule", "schedule"));

    private static final Pattern HEADER = Pattern.compile("--\\s*(name|fragment):\\s*(\\w+)\\s*");
    private static final Pattern INCLUDE = Pattern.compile("\\{\\{(\\w+)}}");
    private static final Map<String, String> TEMPLATES = load();

    /** Every statement with this schema substituted, bound once when the {@link Database} is made. */
    private final Map<String, String> bound;

    Statements(SchemaName schema) {
        Map<String, String> statements = new HashMap<>();
        TEMPLATES.forEach((name, template) -> statements.put(name, schema.bind(template)));
        this.bound = Map.copyOf(statements);
    }

    /** The statement {@code name} of this schema: a map look-up, so query classes ask for it at each call. */
    String get(String name) {
        String statement = bound.get(name);
        if (statement == null) {
            throw new IllegalArgumentException("no SQL statement named " + name + " in dev/docket/sql/*.sql");
        }
        return statement;
    }

    private static Map<String, String> load() {
        Map<String, String> fragments = new HashMap<>();
        Map<String, String> statements = new HashMap<>();
        for (String file : FILES.keySet()) {
            Blocks blocks = parse(file);
            putAll(fragments, blocks.fragments, file);
            putAll(statements, blocks.statements, file);
        }
        Map<String, String> expanded = new HashMap<>();
        statements.forEach((name, text) -> expanded.put(name, expand(name, text, fragments)));
        return Map.copyOf(expanded);
    }

    private static void putAll(Map<String, String> into, Map<String, String> blocks, String file) {
        blocks.forEach((name, text) -> {
            if (!name.startsWith(FILES.get(file))) {
                throw new IllegalStateException("dev/docket/sql/" + file + ".sql: " + name + " belongs in another file "
                        + "(names in this one start with " + FILES.get(file) + ")");
            }
            if (into.putIfAbsent(name, text) != null) {
                throw new IllegalStateException("dev/docket/sql/" + file + ".sql: " + name + " is defined twice");
            }
        });
    }

    private static String expand(String statement, String text, Map<String, String> fragments) {
        Matcher m = INCLUDE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String fragment = fragments.get(name);
            if (fragment == null && !List.of("schema", "schema_name", "channel").contains(name)) {
                throw new IllegalStateException("statement " + statement + " includes {{" + name
                        + "}}, which is neither a fragment nor a schema placeholder");
            }
            // A fragment may include fragments of its own.
            m.appendReplacement(out, Matcher.quoteReplacement(fragment != null ? expand(statement, fragment, fragments)
                    : m.group()));
        }
        return m.appendTail(out).toString();
    }

    private record Blocks(Map<String, String> fragments, Map<String, String> statements) {
    }

    private static Blocks parse(String file) {
        Blocks blocks = new Blocks(new LinkedHashMap<>(), new LinkedHashMap<>());
        Map<String, String> current = null;
        String name = null;
        StringBuilder text = new StringBuilder();
        for (String line : read(file).split("\n", -1)) {
            Matcher header = HEADER.matcher(line.strip());
            if (header.matches()) {
                finish(current, name, text);
                current = header.group(1).equals("name") ? blocks.statements : blocks.fragments;
                name = header.group(2);
                text.setLength(0);
            } else if (current != null && !line.strip().startsWith("--")) {
                text.append(line).append('\n');
            }
        }
        finish(current, name, text);
        return blocks;
    }

    private static void finish(Map<String, String> blocks, String name, StringBuilder text) {
        if (blocks != null) {
            blocks.put(name, text.toString().strip());
        }
    }

    private static String read(String file) {
        String path = "/dev/docket/sql/" + file + ".sql";
        try (InputStream in = Statements.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("\r\n", "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }
}
