package dev.docket.server.cli;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import org.postgresql.Driver;

/**
 * A database address as users write it, turned into what PgJDBC takes. Accepts
 * {@code postgres://user:pass@host:port/db?sslmode=require}, the same with {@code postgresql://},
 * and {@code jdbc:postgresql://host:port/db?user=...&password=...}. In the first two, user and
 * password may also come from the query ({@code ?user=...&password=...}); percent-escapes are
 * decoded; every other query parameter is passed to PgJDBC as it is.
 *
 * @param jdbcUrl  the JDBC URL (it may carry credentials in its query: never print it)
 * @param user     the user, or {@code null} (PgJDBC then uses the URL's or the OS user)
 * @param password the password, or {@code null}
 * @param display  host, port and database, safe to show in messages
 */
record DatabaseUrl(String jdbcUrl, String user, String password, String display) {

    private static final Pattern HOST_SPEC = Pattern.compile("[A-Za-z0-9._\\-\\[\\]:,%]*");

    @Override
    public String toString() {
        return display;
    }

    /**
     * Parses {@code text}.
     *
     * @throws CommandFailure (a usage error) saying what a valid URL looks like; the message never
     *                        contains the password
     */
    static DatabaseUrl parse(String text) {
        if (text == null || text.isBlank()) {
            throw CommandFailure.usage("no database given: pass --database-url postgres://user:pass@host:5432/db "
                    + "or set DOCKET_DATABASE_URL");
        }
        String url = text.strip();
        DatabaseUrl parsed;
        if (url.startsWith("jdbc:postgresql:")) {
            int query = url.indexOf('?');
            parsed = new DatabaseUrl(url, null, null, query < 0 ? url : url.substring(0, query));
        } else if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
            parsed = fromUri(url.substring(url.indexOf("://") + 3));
        } else {
            throw invalid("it must start with postgres://, postgresql:// or jdbc:postgresql://");
        }
        Properties props = Driver.parseURL(parsed.jdbcUrl(), null);
        if (props == null) {
            throw invalid("PgJDBC cannot read it (check the host, port and database name)");
        }
        return parsed;
    }

    private static DatabaseUrl fromUri(String rest) {
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        int fragment = query.indexOf('#');
        if (fragment >= 0) {
            query = query.substring(0, fragment);
        }
        String user = null;
        String password = null;
        // The last '@' ends the user info: an unescaped '@' or '/' in a password still parses.
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
        }
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        String database = slash < 0 ? "" : decode(rest.substring(slash + 1));
        if (hosts.isEmpty()) {
            hosts = "localhost";
        }
        if (!HOST_SPEC.matcher(hosts).matches()) {
            throw invalid("the host part '" + clip(hosts) + "' is not a host name or address");
        }
        for (String host : hosts.split(",")) {
            int colon = host.lastIndexOf(':');
            if (colon > 0 && !host.endsWith("]") && !host.substring(colon + 1).matches("\\d{1,5}")) {
                throw invalid("the port of '" + clip(host) + "' is not a number");
            }
        }
        if (database.contains("/")) {
            throw invalid("the database name must not contain '/'");
        }
        List<String> passOn = new ArrayList<>();
        for (String param : query.split("&")) {
            if (param.isEmpty()) {
                continue;
            }
            int eq = param.indexOf('=');
            String key = eq < 0 ? param : param.substring(0, eq);
            String value = eq < 0 ? "" : param.substring(eq + 1);
            switch (key) {
                case "user" -> user = decode(value);
                case "password" -> password = decode(value);
                default -> passOn.add(param);
            }
        }
        String jdbc = "jdbc:postgresql://" + hosts + "/" + encodePath(database)
                + (passOn.isEmpty() ? "" : "?" + String.join("&", passOn));
        return new DatabaseUrl(jdbc, emptyToNull(user), password, hosts + "/" + database);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    /** Percent-decoding as in URIs ('+' stays a plus). */
    private static String decode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '%' && i + 2 < bytes.length && hex(bytes[i + 1]) >= 0 && hex(bytes[i + 2]) >= 0) {
                out.write(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 2;
            } else {
                out.write(bytes[i]);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static int hex(byte b) {
        return Character.digit(b, 16);
    }

    private static String encodePath(String database) {
        StringBuilder out = new StringBuilder();
        for (byte b : database.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || "-._~".indexOf(c) >= 0)) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    private static CommandFailure invalid(String why) {
        return CommandFailure.usage("--database-url is not a usable PostgreSQL URL: " + why
                + " (expected postgres://user:pass@host:5432/db or jdbc:postgresql://host:5432/db)");
    }

    private static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
