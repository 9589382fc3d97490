package dev.docket.internal.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.SchemaName;
import dev.docket.testing.DocketTest;
import dev.docket.testing.FreshSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The database-read gauges when the schema they read does not exist yet, and once it does. */
@FreshSchema
class QueueGaugesTest extends DocketTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private QueueGauges gauges() {
        Database store = new Database(dataSource(), new SchemaName(schema), new ObjectMapper());
        return (QueueGauges) QueueGauges.of(registry, store, new KindLabels(10), Duration.ofSeconds(1));
    }

    /** A Docket is often built before migrate() runs: until then the gauges read nothing and report no failure. */
    @Test
    void beforeMigrationReadsNothingWithoutFailing() throws Exception {
        QueueGauges gauges = gauges();
        assertThatCode(gauges::runOnce).doesNotThrowAnyException();
        assertThat(registry.find("docket.jobs.table.dead.tuples").gauge().value()).isNaN();

        Docket docket = closeAfter(Docket.builder(dataSource()).schema(schema).build());
        docket.migrate();
        gauges.runOnce();
        assertThat(registry.find("docket.jobs.table.dead.tuples").gauge().value()).isZero();
    }

    /** Any other failure still reaches the service's failure log and backoff. */
    @Test
    void otherFailuresStillFail() {
        execute("CREATE SCHEMA " + schema);
        execute("CREATE TABLE " + schema + ".jobs (id bigint)");
        assertThatThrownBy(gauges()::runOnce).isInstanceOf(SQLException.class);
    }
}
