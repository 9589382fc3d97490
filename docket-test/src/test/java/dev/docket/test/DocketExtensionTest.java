package dev.docket.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.docket.Docket;
import dev.docket.JobRun;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension's Docket: migrated on its own schema, given as a parameter and as a field, with jobs run on the test's thread. */
class DocketExtensionTest {

    record Greeting(String name) {
    }

    @RegisterExtension
    static final DocketExtension docket = DocketExtension.configure(b -> b.schema("ignored").maxPayloadBytes(1024));

    @Test
    void theDocketIsMigratedOnTheClasssOwnSchemaWhateverTheSettingsSay(Docket given, DataSource dataSource) throws Exception {
        assertThat(given).isSameAs(docket.docket());
        assertThat(given.schema()).isEqualTo(docket.schema()).startsWith("docket_test_").isNotEqualTo("ignored");
        assertThat(given.schemaVersion()).isEqualTo(Docket.supportedSchemaVersion());
        try (Connection c = dataSource.getConnection();
             ResultSet rs = c.createStatement().executeQuery("SELECT current_setting('server_version_num')::int")) {
            rs.next();
            assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(140000);
        }
    }

    @Test
    void theSettingsApply() {
        assertThatThrownBy(() -> docket.docket().enqueue("big", "x".repeat(2000)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readyJobsRunOnTheTestsThread() {
        long id = docket.docket().enqueue("greet", new Greeting("ada"));
        StringBuilder greeted = new StringBuilder();
        List<JobRun> runs = docket.docket().worker().queue("default", 1)
                .handler("greet", Greeting.class, (g, ctx) -> greeted.append("hello ").append(g.name()))
                .runReadyJobs();
        assertThat(greeted).hasToString("hello ada");
        assertThat(runs).singleElement().satisfies(r -> {
            assertThat(r.jobId()).isEqualTo(id);
            assertThat(r.completed()).isTrue();
        });
    }

    @Test
    void outsideItsClassTheExtensionHasNoDocket() {
        assertThatThrownBy(() -> DocketExtension.configure(b -> b).docket())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only while its test class runs");
    }
}
