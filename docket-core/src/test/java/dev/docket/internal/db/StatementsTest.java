package dev.docket.internal.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

/** The named statements as loaded from dev/docket/sql/*.sql and bound to a schema. */
class StatementsTest {

    private final Statements sql = new Statements(new SchemaName("shop"));

    @Test
    void fragmentsAreIncludedAndTheSchemaIsSubstituted() {
        String claim = sql.get("jobClaim");
        assertThat(claim).startsWith("UPDATE \"shop\".jobs\n   SET state = 'running'")
                .contains("AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off'\nRETURNING id, queue")
                .doesNotContain("{{").doesNotContain("--");
        assertThat(sql.get("jobCompleteManyToHistory"))
                .contains("WHERE j.id = f.id AND j.attempt = f.attempt AND j.locked_by = ? AND j.state = 'running'")
                .contains("INSERT INTO \"shop\".job_history (id, queue, kind, payload,");
        assertThat(sql.get("queueClaimLock")).contains("'docket.claim.shop.'");
        assertThat(sql.get("queueNotify")).contains("pg_notify('docket.shop', q)");
    }

    @Test
    void aFragmentMayIncludeFragments() {
        assertThat(sql.get("jobHeartbeatManyAsyncCommit"))
                .contains("WHERE j.id = f.id AND j.attempt = f.attempt AND j.locked_by = ?")
                .contains("set_config('synchronous_commit', 'off', true)")
                .doesNotContain("{{");
    }

    @Test
    void commentsStayInTheFiles() {
        assertThat(sql.get("jobHeartbeatMany")).startsWith("UPDATE \"shop\".jobs j").doesNotContain("HOT update");
    }

    @Test
    void anUnknownNameIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> sql.get("jobTeleport")).withMessageContaining("jobTeleport");
    }
}
