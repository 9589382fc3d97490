package dev.docket.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.internal.db.DatabaseUrl;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * a few seconds, from the binaries on the class path; 18 unless the binaries say otherwise) and
 * stopped when the JVM exits. Docket's own test suites use it too.
 *
 * <p>Tests share one pool of 40 connections ({@link #dataSource()}); each test class works in a
 * schema of its own ({@link #newSchemaName()}), so test classes may run in parallel.
 */
public final class TestPostgres {

    /** The environment variable that names an existing PostgreSQL server for tests. */
    public static final String URL_VARIABLE = "DOCKET_TEST_DATABASE_URL";

    private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    /** The environment variable that names a second PostgreSQL server, for tests of queues routed across two. */
    public static final String SECOND_URL_VARIABLE = "DOCKET_TEST_SECOND_DATABASE_URL";

    private static TestPostgres instance;
    private static TestPostgres second;

    private final String jdbcUrl;
    private final String username;
    private final String password;
    private final HikariDataSource pool;

    private TestPostgres(String jdbcUrl, String username, String password) {
        this.jdbcUrl = jdbcUrl;
        this.username = username;
        this.password = password;
        this.pool = pool(40);
    }

    /**
     * The test database, started or connected to on first use.
     *
     * @throws IllegalArgumentException when {@code DOCKET_TEST_DATABASE_URL} is not a PostgreSQL URL
     */
    public static synchronized TestPostgres get() {
        if (instance == null) {
            String url = System.getenv(URL_VARIABLE);
            instance = url == null || url.isBlank() ? startEmbedded() : connect(url);
        }
        return instance;
    }

    /**
     * A second PostgreSQL server, another cluster than {@link #get()}'s (its own initdb, port, WAL and
     * system identifier), for tests of several databases: the server named by
     * {@code DOCKET_TEST_SECOND_DATABASE_URL} when it is set, else a second embedded PostgreSQL started
     * on first use and stopped when the JVM exits.
     *
     * @throws IllegalArgumentException when {@code DOCKET_TEST_SECOND_DATABASE_URL} is not a PostgreSQL URL
     */
    public static synchronized TestPostgres second() {
        if (second == null) {
            String url = System.getenv(SECOND_URL_VARIABLE);
            second = url == null || url.isBlank() ? startEmbedded() : connect(url, SECOND_URL_VARIABLE);
        }
        return second;
    }

    /** For a suite that starts and stops hundreds of workers and runs its test classes in parallel. */
    private static TestPostgres startEmbedded() {
        try {
            EmbeddedPostgres server = EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("shared_buffers", "256MB")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.close();
                } catch (IOException e) {
                    System.err.println("docket-test: stopping the embedded PostgreSQL failed: " + e);
                }
            }, "docket-test-postgres-stop"));
            return new TestPostgres(server.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("docket-test: cannot start the embedded PostgreSQL", e);
        }
    }

    static TestPostgres connect(String url) {
        return connect(url, URL_VARIABLE);
    }

    private static TestPostgres connect(String url, String variable) {
        DatabaseUrl parsed;
        try {
            parsed = DatabaseUrl.parse(url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(variable + " is not a usable PostgreSQL URL: " + e.getMessage()
                    + " (expected postgres://user:password@host:5432/db or jdbc:postgresql://host:5432/db)", e);
        }
        return new TestPostgres(parsed.jdbcUrl(), parsed.user(), parsed.password());
    }

    /** The shared pool (40 connections). Do not close it. */
    public DataSource dataSource() {
        return pool;
    }

    /** A new pool of {@code size} connections to the test database, for a test that needs its own; the caller closes it. */
    public HikariDataSource pool(int size) {
        return new HikariDataSource(config(size));
    }

    /**
     * A new pool of {@code size} connections handed out with auto-commit off, as Spring Boot users
     * often configure theirs: a write that does not set auto-commit itself is rolled back when its
     * connection goes back to the pool. The caller closes it.
     */
    public HikariDataSource poolWithoutAutoCommit(int size) {
        HikariConfig config = config(size);
        config.setAutoCommit(false);
        config.setPoolName("docket-test-no-autocommit");
        return new HikariDataSource(config);
    }

    private HikariConfig config(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(username);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        config.setPoolName("docket-test");
        return config;
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

    /** The PostgreSQL major version of the server, for a test that needs a newer one than 14. */
    public int serverMajorVersion() {
        try (Connection c = pool.getConnection()) {
            return c.getMetaData().getDatabaseMajorVersion();
        } catch (SQLException e) {
            throw new IllegalStateException("docket-test: reading the server version failed: " + e.getMessage(), e);
        }
    }

    /**
     * Runs one statement on a connection of the shared pool.
     *
     * @throws IllegalStateException carrying the statement and PostgreSQL's message when it fails
     */
    public void execute(String sql) {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
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
