package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.testing.DocketTest;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/**
 * PostgreSQL refuses a worker's new connections (here its role may no longer log in, SQLSTATE
 * 28000; too many connections, 53300, reaches the worker the same way): the pool's timeout wraps
 * the refusal, and the worker's health and its log must carry the database's own reason.
 */
@ResourceLock(Resources.SYSTEM_ERR)
class RefusedConnectionTest extends DocketTest {

    record Task(int n) {
    }

    @Test
    void theDatabasesReasonForRefusingIsInHealthAndTheLog() throws Exception {
        docket();
        String role = "refused_" + schema;
        String app = "docket-refused-" + schema;
        execute("CREATE ROLE " + role + " LOGIN SUPERUSER PASSWORD 'pw'");
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        PrintStream stderr = System.err;
        System.setErr(new PrintStream(new TeeStream(stderr, logged), true, StandardCharsets.UTF_8));
        try {
            HikariConfig config = new HikariConfig();
            try (HikariDataSource template = db.pool(1)) {
                template.copyStateTo(config);
            }
            config.setDataSourceProperties(new java.util.Properties());
            config.addDataSourceProperty("ApplicationName", app);
            // The embedded database's URL names its user, and a URL's user wins over the pool's.
            config.setJdbcUrl(config.getJdbcUrl().replaceAll("user=[^&]*", "user=" + role)
                    .replaceAll("password=[^&]*", "password=pw"));
            config.setUsername(role);
            config.setPassword("pw");
            config.setPoolName(app);
            config.setMaximumPoolSize(10);
            config.setConnectionTimeout(500);
            HikariDataSource pool = closeAfter(new HikariDataSource(config));
            Docket docket = closeAfter(Docket.builder(pool).schema(schema).build());
            Worker worker = worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofMillis(200))
                    .handler("task", Task.class, (t, ctx) -> { }));
            long id = docket.enqueue("task", new Task(1));
            awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(20));

            execute("ALTER ROLE " + role + " NOLOGIN");
            execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" + app + "'");

            await("health names PostgreSQL's reason").atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(worker.health().lastErrors().values())
                            .anySatisfy(e -> assertThat(e).contains("is not permitted to log in").contains("28000")));
            await("the log names PostgreSQL's reason").atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(logged.toString(StandardCharsets.UTF_8)).containsPattern(
                            "failed \\(\\d+ in a row\\): .*is not permitted to log in"));
        } finally {
            System.setErr(stderr);
            execute("ALTER ROLE " + role + " LOGIN");
        }
    }

    /** Writes to two streams. */
    private static final class TeeStream extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        TeeStream(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws java.io.IOException {
            a.write(c);
            synchronized (b) {
                b.write(c);
            }
        }

        @Override
        public void write(byte[] bytes, int off, int len) throws java.io.IOException {
            a.write(bytes, off, len);
            synchronized (b) {
                b.write(bytes, off, len);
            }
        }
    }
}
