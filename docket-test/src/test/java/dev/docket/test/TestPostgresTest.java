package dev.docket.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** DOCKET_TEST_DATABASE_URL forms, and the schema names the kit drops. */
class TestPostgresTest {

    @Test
    void aPostgresUrlBecomesAJdbcUrlWithDecodedCredentials() {
        assertThat(TestPostgres.parse("postgres://app:p%40ss%3Aword@db.internal:5433/shop?sslmode=require"))
                .isEqualTo(new TestPostgres.Target("jdbc:postgresql://db.internal:5433/shop?sslmode=require", "app",
                        "p@ss:word"));
        assertThat(TestPostgres.parse("postgresql://db/shop"))
                .isEqualTo(new TestPostgres.Target("jdbc:postgresql://db/shop", null, null));
        assertThat(TestPostgres.parse("jdbc:postgresql://db/shop?user=a"))
                .isEqualTo(new TestPostgres.Target("jdbc:postgresql://db/shop?user=a", null, null));
    }

    @Test
    void otherUrlsAreRefusedWithTheExpectedForm() {
        assertThatThrownBy(() -> TestPostgres.parse("mysql://db/shop")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("postgres://user:password@host:5432/db");
        assertThatThrownBy(() -> TestPostgres.parse("postgres://")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TestPostgres.parse("postgres://db/ shop")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a URL");
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
