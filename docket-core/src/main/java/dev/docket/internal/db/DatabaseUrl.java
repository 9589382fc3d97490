package dev.docket.internal.db;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.postgresql.Driver;

/**
 * A database address as users write it, turned into what PgJDBC takes: the one parser of the
 * {@code docket} command's {@code --database-url}, the demo's, and the test kits'
 * {@code DOCKET_TEST_DATABASE_URL}. Accepts {@code postgres://user:pass@host:port/db?sslmode=require},
 * the same with {@code postgresql://} (several {@code host:port} separated by commas; no host means
 * localhost), and a {@code jdbc:postgresql:} URL, which is passed on as it is. In the first two, user
 * and password may also come from the query ({@code ?user=...&password=...}, which win); they and the
 * database name are percent-decoded as UTF-8 ({@code +} stays a plus); the last {@code @} before the
 * path ends the user info, so an unescaped {@code @} or {@code /} in a password still parses; every
 * other query parameter goes to PgJDBC as it is.
 *
 * @param jdbcUrl  the JDBC URL (it may carry credentials in its query: never print it)
 * @param user     the user, or {@code null} (PgJDBC then uses the URL's or the operating system's)
 * @param password the password, or {@code null}
 * @param display  hosts, ports and database, safe to show in messages
 */
public record DatabaseUrl(String jdbcUrl, String user, String password, String display) {

    /** A name or IPv4 address, or an IPv6 address in brackets (with its zone, percent-encoded). */
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9._\\-]+|\\[[0-9A-Fa-f:.]+(%25[A-Za-z0-9._\\-]+)?]");
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

    @Override
    public String toString() {
        return display;
    }

    /**
     * Parses {@code text} (surrounding white space is ignored).
     *
     * @throws IllegalArgumentException saying what is wrong with it, in words that never quote the
     *                                  password: not one of the forms above, a control character, a
     *                                  {@code %} that starts no escape, an escape of NUL or of bytes
     *                                  that are not UTF-8, a host that is not a name or an address, a
     *                                  port that is not a number from 1 to 65535, a {@code /} in the
     *                                  database name, or a URL that PgJDBC cannot read
     */
    public static DatabaseUrl parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("it is empty");
        }
        String url = text.strip();
        if (url.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new IllegalArgumentException("it contains a control character (a line break, a tab, ...)");
        }
        DatabaseUrl parsed;
        if (url.startsWith("jdbc:postgresql:")) {
            int query = url.indexOf('?');
            parsed = new DatabaseUrl(url, null, null, query < 0 ? url : url.substring(0, query));
        } else if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
            parsed = fromUri(url.substring(url.indexOf("://") + 3));
        } else {
            throw new IllegalArgumentException("it must start with postgres://, postgresql:// or jdbc:postgresql:");
        }
        if (Driver.parseURL(parsed.jdbcUrl(), null) == null) {
            throw new IllegalArgumentException("PgJDBC cannot read it (check the host, port and database name)");
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
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), "the user");
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1), "the password");
        }
        int slash = rest.indexOf('/');
        List<String> hostList = new ArrayList<>();
        for (String host : (slash < 0 ? rest : rest.substring(0, slash)).split(",", -1)) {
            hostList.add(checkHost(host));
        }
        String hosts = String.join(",", hostList);
        String database = slash < 0 ? "" : decode(rest.substring(slash + 1), "the database name");
        if (database.contains("/")) {
            throw new IllegalArgumentException("the database name must not contain '/'");
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
                case "user" -> user = decode(value, "the user");
                case "password" -> password = decode(value, "the password");
                default -> passOn.add(param);
            }
        }
        String jdbc = "jdbc:postgresql://" + hosts + "/" + encodePath(database)
                + (passOn.isEmpty() ? "" : "?" + String.join("&", passOn));
        return new DatabaseUrl(jdbc, user == null || user.isEmpty() ? null : user, password, hosts + "/" + database);
    }

    /**
     * {@code host}, {@code host:port}, {@code [ipv6]} or {@code [ipv6]:port}, returned as PgJDBC takes it;
     * no host (as in {@code postgres:///db} or {@code postgres://:5433/db}) is localhost, as for libpq.
     */
    private static String checkHost(String hostAndPort) {
        String host = hostAndPort;
        String port = null;
        int colon = hostAndPort.lastIndexOf(':');
        if (colon >= 0 && hostAndPort.indexOf(']', colon) < 0) {
            host = hostAndPort.substring(0, colon);
            port = hostAndPort.substring(colon + 1);
        }
        if (host.isEmpty()) {
            host = "localhost";
        }
        if (!HOST.matcher(host).matches()) {
            throw new IllegalArgumentException("the host '" + clip(host) + "' is not a host name or address");
        }
        if (port == null) {
            return host;
        }
        if (!PORT.matcher(port).matches() || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            throw new IllegalArgumentException("the port of '" + clip(hostAndPort) + "' is not a number from 1 to 65535");
        }
        return host + ":" + port;
    }

    /** Percent-decoding as in URIs, as UTF-8 ('+' stays a plus). {@code what} names the part, never its value. */
    private static String decode(String s, String what) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != '%') {
                out.write(bytes[i]);
                continue;
            }
            int high = i + 1 < bytes.length ? Character.digit(bytes[i + 1], 16) : -1;
            int low = i + 2 < bytes.length ? Character.digit(bytes[i + 2], 16) : -1;
            if (high < 0 || low < 0) {
                throw new IllegalArgumentException(what + " has a '%' that starts no %XX escape (write a '%' as %25)");
            }
            if (high == 0 && low == 0) {
                throw new IllegalArgumentException(what + " contains %00");
            }
            out.write(high * 16 + low);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(out.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(what + " has %XX escapes that are not UTF-8");
        }
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

    private static String clip(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
