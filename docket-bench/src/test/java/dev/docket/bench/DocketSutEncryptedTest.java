package dev.docket.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The {@code encrypted} configuration does what its rows claim to measure: its jobs are stored encrypted (the
 * parcel's personal data is not in the table) and its handlers still read every parcel. No speed is measured.
 */
class DocketSutEncryptedTest {

    @Test
    void theEncryptedConfigStoresCiphertextAndItsHandlersReadEveryParcel() throws Exception {
        DocketSut sut = new DocketSut();
        assertThat(sut.configs("drain")).contains(DocketSut.PARCEL, DocketSut.ENCRYPTED);
        assertThat(sut.configs("bulk")).contains(DocketSut.PARCEL, DocketSut.ENCRYPTED);
        assertThat(sut.optIn(DocketSut.ENCRYPTED)).as("only when named with --configs").isTrue();
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
            DataSource ds = pg.getPostgresDatabase();
            sut.open(pg.getJdbcUrl("postgres", "postgres"), ds, DocketSut.ENCRYPTED);
            try {
                sut.enqueueBatch(0, 50);
                sut.enqueueOne(50);
                assertThat(count(ds, "SELECT count(*) FROM bench.jobs WHERE payload::text LIKE '%Lovelace%'")).isZero();
                assertThat(count(ds, "SELECT count(*) FROM bench.jobs WHERE payload -> 'docket:encrypted' IS NOT NULL")).isEqualTo(51);

                Set<Long> seen = ConcurrentHashMap.newKeySet();
                CountDownLatch started = new CountDownLatch(51);
                sut.startWorkers(4, (seq, nanos) -> {
                    if (seen.add(seq)) {
                        started.countDown();
                    }
                });
                assertThat(started.await(60, TimeUnit.SECONDS)).as("every job started").isTrue();
                assertThat(seen).hasSize(51);
            } finally {
                sut.stopWorkers();
                sut.close();
            }
        }
    }

    private static long count(DataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
