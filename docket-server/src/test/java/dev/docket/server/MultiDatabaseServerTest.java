package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.server.metrics.QueueMetrics;
import dev.docket.test.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server over two PostgreSQL servers, as {@code docket serve --database-url A --database imaging=B}
 * builds it: the default database's API unchanged, every database under {@code /api/databases}, jobs
 * addressed as {@code database/id}, one scrape whose every metric has its {@code database} label.
 */
class MultiDatabaseServerTest extends ServerTest {

    record Task(int n) {
    }

    private final TestPostgres second = TestPostgres.second();
    private Docket imaging;

    @Override
    @BeforeEach
    void startServer() {
        docket = docket(b -> b.meterRegistry(QueueMetrics.registryFor("default")).metricsInterval(Duration.ofMillis(100)));
        String imagingSchema = second.newSchemaName();
        closeAfter(() -> second.dropSchema(imagingSchema));
        imaging = closeAfter(Docket.builder(second.dataSource()).schema(imagingSchema)
                .meterRegistry(QueueMetrics.registryFor("imaging")).metricsInterval(Duration.ofMillis(100)).build());
        imaging.migrate();
        tokenStore = new TokenStore();
        for (Role role : Role.values()) {
            String token = TokenStore.generate();
            tokens.put(role, token);
            tokenStore.add(role, token);
        }
        Map<String, Docket> databases = new LinkedHashMap<>();
        databases.put("default", docket);
        databases.put("imaging", imaging);
        server = closeAfter(DocketServer.start(databases, tokenStore, DocketServer.Config.defaults().withPort(0)));
    }

    @Test
    void everyDatabaseIsShownWithItsQueuesWorkersAndDeadJobs() {
        docket.enqueue("receipt", new Task(1), JobOptions.builder().queue("email").build());
        imaging.enqueue("thumbnail", new Task(2), JobOptions.builder().queue("thumbnails").build());
        closeAfter(imaging.worker().queue("ocr", 1).handler("ocr", Task.class, (t, ctx) -> { }).start());

        JsonNode body = await().atMost(Duration.ofSeconds(10)).until(() -> get("/api/databases", Role.VIEWER).json(),
                j -> j.get("databases").get(1).get("workers").size() == 1);
        assertThat(body.get("defaultDatabase").asText()).isEqualTo("default");
        List<String> queues = new ArrayList<>();
        body.get("databases").forEach(d -> d.get("queues").forEach(q -> queues.add(d.get("name").asText() + ":"
                + q.get("queue").asText())));
        assertThat(queues).contains("default:email", "imaging:thumbnails").doesNotContain("default:thumbnails");
        assertThat(body.get("databases").get(0).get("isDefault").asBoolean()).isTrue();
        assertThat(body.get("databases").get(1).get("workers").get(0).get("queues").has("ocr")).isTrue();
        assertThat(body.get("databases").get(1).get("deadJobs").asLong()).isZero();
        assertThat(send(request("/api/databases").GET().build()).status()).as("without a token").isEqualTo(401);
    }

    @Test
    void aJobIsAddressedAsDatabaseSlashIdAndTheUnlabelledRoutesStayTheDefaultDatabases() {
        long inDefault = docket.enqueue("receipt", new Task(1));
        long inImaging = imaging.enqueue("thumbnail", new Task(2));
        assertThat(get("/api/databases/imaging/jobs/" + inImaging, Role.VIEWER).json().get("kind").asText())
                .isEqualTo("thumbnail");
        assertThat(get("/api/databases/default/jobs/" + inDefault, Role.VIEWER).json().get("kind").asText())
                .isEqualTo("receipt");
        assertThat(get("/api/jobs/" + inDefault, Role.VIEWER).json().get("kind").asText()).isEqualTo("receipt");

        Reply unknown = get("/api/databases/billing/jobs/1", Role.VIEWER);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().get("message").asText()).contains("no database 'billing'");
        assertThat(get("/api/databases/imaging/jobs/" + (inImaging + 1000), Role.VIEWER).status()).isEqualTo(404);
        assertThat(get("/api/databases/imaging/jobs/abc", Role.VIEWER).status()).isEqualTo(400);
        assertThat(get("/api/databases/imaging/jobs/-1", Role.VIEWER).status()).isEqualTo(400);
        assertThat(get("/api/databases/" + "x".repeat(5000) + "/jobs/1", Role.VIEWER).status()).isIn(404, 414, 431);
        assertThat(get("/api/databases/%C3%A9%00/jobs/1", Role.VIEWER).status()).isIn(400, 404);
        assertThat(send(request("/api/databases/imaging/jobs/" + inImaging).GET().build()).status()).isEqualTo(401);
    }

    @Test
    void oneScrapeLabelsEveryMetricWithItsDatabaseAndDeclaresEachFamilyOnce() {
        docket.enqueue("receipt", new Task(1), JobOptions.builder().queue("email").build());
        imaging.enqueue("thumbnail", new Task(2), JobOptions.builder().queue("thumbnails").build());
        String text = await().atMost(Duration.ofSeconds(30)).until(() -> {
            server.metrics().refresh();
            return get("/metrics", Role.VIEWER).text();
        }, t -> t.contains("database=\"imaging\"") && t.contains("queue=\"thumbnails\""));
        assertThat(text).contains("docket_jobs{database=\"default\",kind=\"receipt\",queue=\"email\",state=\"ready\"} 1.0")
                .contains("docket_jobs{database=\"imaging\",kind=\"thumbnail\",queue=\"thumbnails\",state=\"ready\"} 1.0");
        assertThat(text.lines().filter(l -> l.equals("# TYPE docket_jobs gauge")).count()).isEqualTo(1);
        assertThat(text.lines().filter(l -> l.startsWith("# TYPE jvm_threads_live_threads")).count()).isEqualTo(1);
        assertThat(text.lines().filter(l -> !l.startsWith("#") && !l.isBlank()))
                .as("every sample has its database").allMatch(l -> l.contains("database=\""));
    }

    @Test
    void theDoctorRunsPerDatabaseAndAcrossThem() {
        docket.enqueue("thumbnail", new Task(1), JobOptions.builder().queue("thumbnails").build());
        imaging.enqueue("thumbnail", new Task(2), JobOptions.builder().queue("thumbnails").build());
        JsonNode report = get("/api/databases/doctor", Role.VIEWER).json();
        assertThat(report.get("status").asText()).isEqualTo("problem");
        assertThat(report.get("databases").fieldNames()).toIterable().containsExactly("default", "imaging");
        assertThat(report.get("acrossDatabases").get(0).get("check").asText()).isEqualTo("queue_in_two_databases");
        assertThat(report.get("acrossDatabases").get(0).get("subject").asText()).isEqualTo("queue thumbnails");
    }
}
