package dev.docket.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** What the server logs when a request fails on its side. */
class ApiErrorsTest {

    /** A pool's timeout wraps the database's reason for refusing: the log line carries it, on one line. */
    @Test
    void aFailureIsLoggedWithTheCauseItWraps() {
        SQLException refusal = new SQLException("FATAL: sorry, too many clients already\n  Detail: none", "53300");
        SQLTransientConnectionException timeout = new SQLTransientConnectionException(
                "pool - Connection is not available, request timed out after 30000ms", "08001", refusal);

        String logged = ApiErrors.withCauses(new RuntimeException("listing jobs failed", timeout));

        assertThat(logged).contains("listing jobs failed").contains("request timed out after 30000ms")
                .contains("caused by java.sql.SQLException: FATAL: sorry, too many clients already Detail: none [SQLSTATE 53300]")
                .doesNotContain("\n");
    }
}
