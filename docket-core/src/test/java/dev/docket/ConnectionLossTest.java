package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every backend of the worker's pool, the listener's included, is terminated while jobs flow:
 * claims, heartbeats, completions and the listener must all recover, no job may be lost or stuck
 * running, and notifications must work again (the poll interval is a minute).
 */
class ConnectionLossTest extends DocketTest {

    record Task(int n) {
    }

    /** A pool like the test pool whose sessions carry {@code applicationName}, so that only they are terminated. */
    private HikariDataSource appPool(String applicationName, int size) {
        HikariConfig config = new HikariConfig();
        try (HikariDataSource template = db.pool(1)) {
            template.copyStateTo(config);
        }
        config.setDataSourceProperties(new java.util.Properties());
        config.addDataSourceProperty("ApplicationName", applicationName);
        config.setPoolName(applicationName);
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    /** Terminates the sessions of {@code applicationName}; returns their pids. */
    private List<Integer> terminate(String applicationName) throws SQLException {
        List<Integer> pids = new ArrayList<>();
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("""
                     WITH victims AS MATERIALIZED (
                         SELECT pid FROM pg_stat_activity
                          WHERE datname = current_database() AND pid <> pg_backend_pid()
                            AND backend_type = 'client backend' AND application_name = ?)
                     SELECT pid FROM victims WHERE pg_terminate_backend(pid)""")) {
            ps.setString(1, applicationName);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getInt(1));
                }
            }
        }
        return pids;
    }

    @Test
    void jobsKeepFlowingAndTheListenerComesBackAfterEveryBackendIsTerminated() throws Exception {
        String app = "docket-conn-loss-" + schema;
        Docket enqueuer = docket(); // the test pool: its sessions are never terminated
        HikariDataSource pool = closeAfter(appPool(app, 10));
        Docket docket = closeAfter(Docket.builder(pool).schema(schema).build());
        Set<Long> ran = ConcurrentHashMap.newKeySet();
        Worker worker = worker(docket, w -> w.queue("default", 4)
                .pollInterval(Duration.ofSeconds(60))
                .lease(Duration.ofSeconds(2)).maintenanceInterval(Duration.ofMillis(200))
                .handler("task", Task.class, (t, ctx) -> ran.add(ctx.jobId())));
        await().atMost(Duration.ofSeconds(10)).until(worker::isListening);
        assertThat(queryLong("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", app))
                .as("the worker's sessions are tagged").isPositive();

        List<Long> ids = new ArrayList<>();
        for (int round = 1; round <= 3; round++) {
            int listenerPid = worker.listenerBackendPid();
            assertThat(listenerPid).isPositive();

            // Jobs flow in from another thread while the backends are terminated.
            List<Long> enqueued = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch someEnqueued = new CountDownLatch(15);
            Thread producer = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < 40; i++) {
                    enqueued.add(enqueuer.enqueue("task", new Task(i)));
                    someEnqueued.countDown();
                }
            });
            assertThat(someEnqueued.await(10, TimeUnit.SECONDS)).isTrue();
            List<Integer> killed = terminate(app);
            assertThat(killed).as("round %d: terminated sessions include the listener", round).contains(listenerPid);
            producer.join(Duration.ofSeconds(20));
            assertThat(enqueued).hasSize(40);
            ids.addAll(enqueued);

            await("listener reconnects").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> worker.isListening() && worker.listenerBackendPid() > 0
                            && worker.listenerBackendPid() != listenerPid);
            int expected = ids.size();
            await("all jobs complete").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                    .until(() -> queryLong("SELECT count(*) FROM {s}.job_history WHERE state = 'completed'") == expected);
            assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).as("no job left live, none stuck running").isZero();
            assertThat(ran).containsAll(ids);

            // With a one-minute poll interval, only a notification picks a new job up before this
            // await gives up (its timeout, a twelfth of the poll interval, tells the two paths apart).
            long probe = enqueuer.enqueue("task", new Task(-round));
            awaitState(enqueuer, probe, JobState.COMPLETED, Duration.ofSeconds(5));
            ids.add(probe);
        }

        assertThat(ids).hasSize(3 * 41).doesNotHaveDuplicates();
        for (long id : ids) {
            JobInfo job = enqueuer.job(id).orElseThrow();
            assertThat(job.state()).isEqualTo(JobState.COMPLETED);
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.dead_jobs")).isZero();
    }
}
