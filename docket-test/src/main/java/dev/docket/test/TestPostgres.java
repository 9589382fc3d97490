package dev.docket.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The PostgreSQL that tests run against, one per JVM: the server named by the environment variable
 * {@code DOCKET_TEST_DATABASE_URL} ({@code postgres://user:password@host:5432/db}, or a
 * {@code jdbc:postgresql:} URL) when it is set, else an embedded PostgreSQL started on first use (in
 * a few seconds, from the binaries on the class path) and stopped when the JVM exits.
 *
 * <p>Tests share one pool of 30 connections ({@link #dataSource()}); each test class works in a
 * schema of its own ({@link #newSchemaName()}), so test classes may run in parallel.
 */
public final class TestPostgres {

    /** The environment variable that names an existing PostgreSQL server for tests. */
    public static final String URL_VARIABLE = "DOCKET_TEST_DATABASE_URL";

    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static TestPostgres instance;

    private final String jdbcUrl;
    private final String username;
    private final String password;
    private final HikariDataSource pool;

    /** Where a test database is: a JDBC URL, and credentials unless the URL carries them. */
    record Target(String jdbcUrl, String username, String password) {
    }

    private TestPostgres(Target target) {
        this.jdbcUrl = target.jdbcUrl();
        this.username = target.username();
        this.password = target.password();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(username);
        config.setPassword(password);
        config.setMaximumPoolSize(30);
        config.setMinimumIdle(0);
        config.setPoolName("docket-test-kit");
        this.pool = new HikariDataSource(config);
    }

    /** The test database, started or connected to on first use. */
    public static synchronized TestPostgres get() {
        if (instance == null) {
            String url = System.getenv(URL_VARIABLE);
            instance = new TestPostgres(url == null || url.isBlank() ? startEmbedded() : parse(url.strip()));
        }
        return instance;
    }

    private static Target startEmbedded() {
        try {
            EmbeddedPostgres server = EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("max_connections", "200").setServerConfig("fsync", "off").start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.close();
                } catch (IOException e) {
                    System.err.println("docket-test: stopping the embedded PostgreSQL failed: " + e);
                }
            }, "docket-test-postgres-stop"));
            return new Target(server.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("docket-test: cannot start the embedded PostgreSQL", e);
        }
    }

    /** Accepts {@code postgres://} and {@code postgresql://} URLs with credentials, or a JDBC URL as it is. */
    static Target parse(String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            return new Target(url, null, null);
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(URL_VARIABLE + " is not a URL: " + e.getMessage(), e);
        }
        if (!"postgres".equals(uri.getScheme()) && !"postgresql".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException(URL_VARIABLE + " must look like postgres://user:password@host:5432/db "
                    + "or jdbc:postgresql://host:5432/db");
        }
        String info = uri.getRawUserInfo();
        String[] credentials = info == null ? new String[0] : info.split(":", 2);
        String jdbc = "jdbc:postgresql://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "")
                + (uri.getRawPath() == null ? "" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        return new Target(jdbc, credentials.length > 0 ? decode(credentials[0]) : null,
                credentials.length > 1 ? decode(credentials[1]) : null);
    }

    private static String decode(String part) {
        return URLDecoder.decode(part, StandardCharsets.UTF_8);
    }

    /** The shared pool (30 connections). Do not close it. */
    public DataSource dataSource() {
        return pool;
    }

    /** The JDBC URL, for a test that configures its own pool (such as {@code spring.datasource.url}). */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The user name, or null when the URL carries it. */
    public String username() {
        return username;
    }

    /** The password, or null when the URL carries it. */
    public String password() {
        return password;
    }

    /** A schema name no other test uses: {@code docket_test_} and 16 random hexadecimal digits. */
    public String newSchemaName() {
        return "docket_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    /**
     * Drops a schema and everything in it; nothing happens when it does not exist.
     *
     * @throws IllegalArgumentException unless {@code schema} is a lower-case identifier (it is quoted into the statement)
     */
    public void dropSchema(String schema) {
        if (schema == null || !SCHEMA_NAME.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema must be a lower-case identifier of up to 63 characters, was "
                    + (schema == null ? "null" : "'" + schema + "'"));
        }
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("docket-test: dropping schema " + schema + " failed: " + e.getMessage(), e);
        }
    }
}
