package dev.docket.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.JobQuery;
import dev.docket.JobState;
import dev.docket.JobSummary;
import dev.docket.spring.app.Mailer;
import dev.docket.spring.app.SendConfirmation;
import dev.docket.spring.app.ShopApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The starter in a real Spring Boot application (web server, Actuator) on real PostgreSQL. */
@ExtendWith(SchemaPerClass.class)
@DirtiesContext
@SpringBootTest(classes = ShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "management.endpoints.web.exposure.include=health",
        "management.endpoint.health.show-details=always",
        "docket.worker.queues.default=4",
        "docket.worker.queues.mail=2",
        "docket.worker.lease=20s",
        "docket.worker.shutdown-grace=2s",
        "docket.retry.max-attempts=7",
        "docket.kinds.report.queue=mail",
        "docket.kinds.report.priority=-2"})
class StarterApplicationTest {

    static final String SCHEMA = SchemaPerClass.newName();

    @DynamicPropertySource
    static void schema(DynamicPropertyRegistry registry) {
        registry.add("docket.schema", () -> SCHEMA);
    }

    @Autowired
    Docket docket;
    @Autowired
    TransactionTemplate transaction;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    Mailer mailer;
    @Autowired
    DocketProperties properties;
    @Autowired
    DocketWorkers workers;
    @LocalServerPort
    int port;

    /** Inserts an order and enqueues its confirmation in one Spring-managed transaction; may then throw. */
    private long placeOrder(String email, boolean failAfterEnqueue) {
        return transaction.execute(status -> {
            Long id = jdbc.queryForObject("INSERT INTO starter_orders (email) VALUES (?) RETURNING id", Long.class, email);
            docket.enqueue("send_confirmation", new SendConfirmation(id, email));
            if (failAfterEnqueue) {
                throw new IllegalStateException("payment declined");
            }
            return id;
        });
    }

    @Test
    void aTransactionThatEnqueuesAndThenThrowsLeavesNeitherTheOrderNorTheJob() {
        String email = unique("declined");
        assertThatThrownBy(() -> placeOrder(email, true)).hasMessage("payment declined");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM starter_orders WHERE email = ?", Integer.class, email)).isZero();
        assertThat(confirmationsTo(email)).isEmpty();
    }

    @Test
    void aCommittedTransactionsJobIsRunByTheTransactionalHandlerBeanWhichCallsAnotherBean() {
        String email = unique("paid");
        long order = placeOrder(email, false);
        JobSummary job = confirmationsTo(email).getFirst();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(mailer::sent, sent -> sent.contains(
                email + ": order " + order + " confirmed by job " + job.id() + ", in a transaction"));
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> docket.job(job.id()).orElseThrow().state() == JobState.COMPLETED);
        assertThat(jdbc.queryForObject("SELECT confirmed FROM starter_orders WHERE id = ?", Boolean.class, order)).isTrue();
    }

    @Test
    void outsideATransactionTheEnqueueCommitsOnItsOwn() {
        long id = docket.enqueue("report", new Object[0], JobOptions.builder().delay(Duration.ofHours(1)).build());
        assertThat(docket.job(id).orElseThrow().queue()).as("docket.kinds.report.queue").isEqualTo("mail");
        assertThat(docket.job(id).orElseThrow().priority()).isEqualTo(-2);
        docket.cancel(id);
    }

    @Test
    void actuatorHealthReportsDocket() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health")).build();
        // The listener connects just after the worker starts.
        JsonNode docketHealth = Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> new ObjectMapper().readTree(http.send(request, HttpResponse.BodyHandlers.ofString()).body())
                        .path("components").path("docket"), h -> h.path("status").asText().equals("UP"));
        assertThat(docketHealth.path("details").path("schemaVersion").asInt()).isEqualTo(Docket.supportedSchemaVersion());
        assertThat(docketHealth.path("details").path("listening").asBoolean()).isTrue();
    }

    @Test
    void propertiesBindToTheDocketAndItsWorker() {
        assertThat(docket.schema()).isEqualTo(SCHEMA);
        assertThat(properties.worker().queues()).containsExactly(Map.entry("default", 4),
                Map.entry("mail", 2));
        assertThat(properties.worker().lease()).isEqualTo(Duration.ofSeconds(20));
        assertThat(properties.worker().shutdownGrace()).isEqualTo(Duration.ofSeconds(2));
        assertThat(docket.retryPolicy("anything").maxAttempts()).isEqualTo(7);
        assertThat(workers.worker()).isPresent();
        assertThat(workers.isRunning()).isTrue();
    }

    private List<JobSummary> confirmationsTo(String email) {
        return docket.admin().jobs(JobQuery.all().withKind("send_confirmation")).stream()
                .filter(j -> docket.job(j.id()).orElseThrow().payload().contains(email)).toList();
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID() + "@example.com";
    }
}
