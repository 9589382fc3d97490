package dev.docket.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What a wrong DOCKET_TEST_DATABASE_URL says (its forms are DatabaseUrlTest's), and the schema names the kit drops. */
class TestPostgresTest {

    @Test
    void aWrongUrlIsRefusedNamingTheVariableAndTheExpectedForm() {
        assertThatThrownBy(() -> TestPostgres.connect("mysql://db/shop")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("DOCKET_TEST_DATABASE_URL is not a usable PostgreSQL URL: it must start with")
                .hasMessageContaining("postgres://user:password@host:5432/db");
        assertThatThrownBy(() -> TestPostgres.connect("postgres://app:s3cr3t@db:port/shop"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port")
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void onlyLowerCaseIdentifiersAreDropped() {
        assertThatThrownBy(() -> TestPostgres.get().dropSchema("x\"; DROP DATABASE postgres; --"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lower-case identifier");
        assertThatThrownBy(() -> TestPostgres.get().dropSchema(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(TestPostgres.get().newSchemaName()).matches("docket_test_[0-9a-f]{16}");
        TestPostgres.get().dropSchema("docket_test_never_created");
    }
}
