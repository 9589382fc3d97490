package dev.docket.internal.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.docket.testing.DocketTest;
import dev.docket.testing.OneConnection;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The helper sets auto-commit for its work whatever the connection had, and gives the connection
 * back as it found it. The connection here is handed out again and again without a pool in between,
 * so nothing but the helper resets it.
 */
class JdbcTest extends DocketTest {

    private HikariDataSource pool;
    private Connection connection;
    private Jdbc jdbc;
    private String insert;

    @BeforeEach
    void oneConnection() throws SQLException {
        docket();
        execute("CREATE TABLE {s}.probe (v int)");
        insert = "INSERT INTO " + schema + ".probe VALUES (?)";
        pool = db.pool(1);
        connection = pool.getConnection();
        jdbc = new Jdbc(OneConnection.handingOut(connection));
    }

    @AfterEach
    void release() throws SQLException {
        connection.close();
        pool.close();
    }

    private long rows(int v) {
        return queryLong("SELECT count(*) FROM {s}.probe WHERE v = ?", v);
    }

    @Test
    void oneStatementCommitsOnAConnectionWithAutoCommitOffAndLeavesItOff() throws SQLException {
        connection.setAutoCommit(false);

        assertThat(jdbc.update(insert, p -> p.int4(1))).isEqualTo(1);

        assertThat(connection.getAutoCommit()).as("given back as it was").isFalse();
        connection.rollback(); // what a pool does to a connection with auto-commit off when it comes back
        assertThat(rows(1)).as("committed by itself").isEqualTo(1);
    }

    @Test
    void aTransactionCommitsWhenItsWorkReturns() throws SQLException {
        connection.setAutoCommit(true);

        jdbc.transaction(c -> {
            Jdbc.update(c, insert, p -> p.int4(2));
            assertThat(c.getAutoCommit()).as("inside the transaction").isFalse();
            assertThat(rows(2)).as("not visible before the commit").isZero();
            return null;
        });

        assertThat(rows(2)).isEqualTo(1);
        assertThat(connection.getAutoCommit()).as("given back as it was").isTrue();
    }

    @Test
    void aTransactionRollsBackWhenItsWorkThrows() throws SQLException {
        connection.setAutoCommit(true);

        assertThatThrownBy(() -> jdbc.transaction(c -> {
            Jdbc.update(c, insert, p -> p.int4(3));
            throw new SQLException("the work failed");
        })).hasMessage("the work failed");

        assertThat(rows(3)).isZero();
        assertThat(connection.getAutoCommit()).as("given back as it was").isTrue();
    }

    @Test
    void nullsAreBoundWithTheirTypes() throws SQLException {
        String sql = "SELECT pg_typeof(?)::text AS a, pg_typeof(?)::text AS b, ? IS NULL AS c";
        assertThat(jdbc.first(sql, p -> p.int4((Integer) null).int8((Long) null).text(null),
                rs -> rs.getString("a") + " " + rs.getString("b") + " " + rs.getBoolean("c")))
                .contains("integer bigint true");
    }
}
