package dev.docket.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The PostgreSQL the tests run against, one per JVM: the server named by
 * {@code DOCKET_TEST_DATABASE_URL} ({@code postgres://user:pass@host:port/db} or a JDBC URL), else an
 * embedded PostgreSQL (18 by default, 14 with {@code -Dpg.version=14}) started on first use and
 * stopped when the JVM exits.
 */
public final class TestDatabase {

    private static TestDatabase instance;

    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final HikariDataSource pool;
    private final MigratedSchemas schemas;

    private TestDatabase(String jdbcUrl, String user, String password) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.pool = pool(40);
        this.schemas = new MigratedSchemas(pool);
    }

    public static synchronized TestDatabase get() {
        if (instance == null) {
            String url = System.getenv("DOCKET_TEST_DATABASE_URL");
            instance = url == null || url.isBlank() ? embedded() : external(url);
        }
        return instance;
    }

    private static TestDatabase embedded() {
        try {
            EmbeddedPostgres pg = EmbeddedPostgres.builder()
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("full_page_writes", "off")
                    .setServerConfig("shared_buffers", "256MB")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    pg.close();
                } catch (IOException e) {
                    System.err.println("stopping embedded PostgreSQL: " + e);
                }
            }));
            return new TestDatabase(pg.getJdbcUrl("postgres", "postgres"), "postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start embedded PostgreSQL", e);
        }
    }

    private static TestDatabase external(String url) {
        TestDatabase db = connect(url);
        Runtime.getRuntime().addShutdownHook(new Thread(db.schemas::dropIdle, "docket-test-schemas-drop"));
        return db;
    }

    private static TestDatabase connect(String url) {
        if (url.startsWith("jdbc:")) {
            return new TestDatabase(url, null, null);
        }
        URI uri = URI.create(url);
        String userInfo = uri.getUserInfo();
        String user = userInfo == null ? null : userInfo.split(":", 2)[0];
        String password = userInfo == null || !userInfo.contains(":") ? null : userInfo.split(":", 2)[1];
        String jdbc = "jdbc:postgresql://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "")
                + uri.getPath() + (uri.getQuery() == null ? "" : "?" + uri.getQuery());
        return new TestDatabase(jdbc, user, password);
    }

    /** A new connection pool of {@code size} connections; the caller closes it. */
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
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        config.setPoolName("docket-test");
        return config;
    }

    /** The migrated schemas that tests take and give back. */
    public MigratedSchemas schemas() {
        return schemas;
    }

    /** The shared pool (40 connections) that tests use by default. */
    public DataSource dataSource() {
        return pool;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The PostgreSQL major version of the server. */
    public int serverMajorVersion() {
        try (Connection c = pool.getConnection()) {
            return c.getMetaData().getDatabaseMajorVersion();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public void execute(String sql) {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }
}
