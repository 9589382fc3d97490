package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.test.TestPostgres;
import dev.docket.testing.DocketTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code docket doctor} over two PostgreSQL servers ({@code --database NAME=URL}), and the option's hostile inputs. */
class MultiDatabaseCliTest extends DocketTest {

    record Task(int n) {
    }

    private final TestPostgres second = TestPostgres.second();
    private Docket orders;
    private Docket imaging;

    @BeforeEach
    void twoDatabases() {
        orders = docket();
        // --schema is one for all databases: the second server gets a schema of the same name.
        second.dropSchema(schema);
        closeAfter(() -> second.dropSchema(schema));
        imaging = closeAfter(Docket.builder(second.dataSource()).schema(schema).build());
        imaging.migrate();
    }

    private Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", db.jdbcUrl(), "--database", "imaging=" + second.jdbcUrl(),
                "--schema", schema));
        return CliRunner.run(Map.of(), all.toArray(String[]::new));
    }

    @Test
    void doctorRunsPerDatabaseNamingEachAndFindsAQueueInTwoDatabases() throws Exception {
        Run healthy = cli("doctor");
        assertThat(healthy.out()).startsWith("docket doctor: ").contains("(databases default, imaging, schema " + schema + ")")
                .contains("queue_in_two_databases").contains("handler_in_other_database");

        orders.enqueue("thumbnail", new Task(1), JobOptions.builder().queue("thumbnails").build());
        imaging.enqueue("thumbnail", new Task(2), JobOptions.builder().queue("thumbnails").build());
        Run r = cli("doctor");
        assertThat(r.exit()).as(r.err()).isEqualTo(2);
        assertThat(r.out()).contains("PROBLEM  queue_in_two_databases  across databases  queue thumbnails")
                .contains("PROBLEM  unserved_kinds  database default  kind thumbnail on queue thumbnails")
                .contains("PROBLEM  unserved_kinds  database imaging  kind thumbnail on queue thumbnails");

        JsonNode json = new ObjectMapper().readTree(cli("doctor", "--json").out());
        assertThat(json.get("status").asText()).isEqualTo("problem");
        assertThat(json.get("databases").fieldNames()).toIterable().containsExactly("default", "imaging");
        assertThat(json.get("acrossDatabases").get(0).get("check").asText()).isEqualTo("queue_in_two_databases");
    }

    @Test
    void aJobIsAddressedAsDatabaseSlashId() throws Exception {
        long inImaging = imaging.enqueue("thumbnail", new Task(7));
        long inOrders = orders.enqueue("receipt", new Task(8));
        JsonNode job = new ObjectMapper().readTree(cli("job", "imaging/" + inImaging).out());
        assertThat(job.get("kind").asText()).isEqualTo("thumbnail");
        assertThat(new ObjectMapper().readTree(cli("job", "default/" + inOrders).out()).get("kind").asText())
                .isEqualTo("receipt");
        assertThat(new ObjectMapper().readTree(cli("job", Long.toString(inOrders)).out()).get("kind").asText())
                .as("a bare id is the default database's").isEqualTo("receipt");
        assertFails(cli("job", "billing/1"), 2, "no database named 'billing'");
        assertFails(cli("job", "imaging/abc"), 2, "DATABASE/ID");
        assertFails(cli("job", "imaging/0"), 2, "positive");
        assertFails(cli("job", "imaging/" + (inImaging + 1000)), 1, "no job " + (inImaging + 1000));
        assertFails(cli("job", "\u0000/1"), 2, "no database named");
    }

    @Test
    void aDatabaseThatCannotBeCheckedIsNamedAndExitsThree() {
        second.dropSchema(schema);
        Run r = cli("doctor");
        assertFails(r, 3, "database imaging: schema " + schema + " has no Docket tables");
    }

    @Test
    void malformedRepeatedOrHostileDatabaseOptionsAreRefusedWithoutLeakingPasswords() {
        String url = db.jdbcUrl();
        assertFails(CliRunner.run(Map.of(), "doctor", "--database-url", url, "--database", "imaging"), 2,
                "--database takes NAME=URL");
        assertFails(CliRunner.run(Map.of(), "doctor", "--database-url", url, "--database", "a/b=" + url), 2,
                "--database takes NAME=URL");
        assertFails(CliRunner.run(Map.of(), "doctor", "--database-url", url, "--database", "x".repeat(64) + "=" + url), 2,
                "--database takes NAME=URL");
        assertFails(CliRunner.run(Map.of(), "doctor", "--database-url", url, "--database", "\u0000=" + url), 2,
                "--database takes NAME=URL");
        assertFails(CliRunner.run(Map.of(), "doctor", "--database-url", url, "--database", "default=" + url), 2,
                "is given twice");
        assertFails(CliRunner.run(Map.of(), "doctor", "--database", "a=" + url, "--database", "a=" + url), 2,
                "--database a is given twice");
        Run leaky = CliRunner.run(Map.of(), "doctor", "--database-url", url, "--database",
                "b=mysql://app:s3cr3t-password@db/shop");
        assertFails(leaky, 2, "--database b is not a usable PostgreSQL URL");
        assertThat(leaky.err()).doesNotContain("s3cr3t-password");
        assertFails(CliRunner.run(Map.of(), "stats", "--database-url", url, "--database", "b=" + url), 2,
                "a job id belongs to one database");
    }
}
