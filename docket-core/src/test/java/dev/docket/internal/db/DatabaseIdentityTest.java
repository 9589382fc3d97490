package dev.docket.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which two identities are one database: the router's transaction check rests on it. */
class DatabaseIdentityTest {

    private static final DatabaseIdentity ORDERS = new DatabaseIdentity("7312", 16384, "app", "10.0.0.1:5432");

    @Test
    void theSystemIdentifierAndTheOidDecideWhateverAddressReachedTheDatabase() {
        assertThat(ORDERS.sameDatabase(new DatabaseIdentity("7312", 16384, "app", "10.0.0.2:6432")))
                .as("a standby promoted, or a pooler in front").isTrue();
        assertThat(ORDERS.sameDatabase(new DatabaseIdentity("9999", 16384, "app", "10.0.0.1:5432")))
                .as("another cluster with the same oid, name and address").isFalse();
        assertThat(ORDERS.sameDatabase(new DatabaseIdentity("7312", 16385, "app", "10.0.0.1:5432")))
                .as("another database of the same cluster").isFalse();
        assertThat(ORDERS.sameDatabase(new DatabaseIdentity("7312", 16384, "other", "10.0.0.1:5432")))
                .as("a database recreated under another name with a recycled oid").isFalse();
    }

    /** Without the system identifier the address stands in: a mismatch is refused, never a wrong database accepted. */
    @Test
    void withoutTheSystemIdentifierTheAddressMustMatchToo() {
        assertThat(ORDERS.sameDatabase(new DatabaseIdentity(null, 16384, "app", "10.0.0.1:5432"))).isTrue();
        assertThat(ORDERS.sameDatabase(new DatabaseIdentity(null, 16384, "app", "10.0.0.9:5432"))).isFalse();
        assertThat(new DatabaseIdentity(null, 16384, "app", "local:5432")
                .sameDatabase(new DatabaseIdentity(null, 16384, "app", "local:5433"))).isFalse();
    }
}
