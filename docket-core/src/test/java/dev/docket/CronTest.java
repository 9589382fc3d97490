package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CronTest extends DocketTest {

    record Tick(String source) {
    }

    private Worker node(Docket docket, String id) {
        return docket.worker().workerId(id).queue("default", 4)
                .leaderLease(Duration.ofMillis(600))
                .maintenanceInterval(Duration.ofMillis(100))
                .handler("tick", Tick.class, (t, ctx) -> { })
                .start();
    }

    /**
     * Two nodes declare a schedule firing every second; the leader is stopped midway. Every slot
     * from the first to the last is enqueued exactly once: no duplicate and no gap across the failover.
     */
    @Test
    @Timeout(60)
    void everySlotIsEnqueuedOnceAcrossTwoNodesAndALeaderFailover() throws Exception {
        PeriodicJob every = new PeriodicJob("every-second", "* * * * * *", ZoneId.of("UTC"), "tick", new Tick("cron"),
                JobOptions.defaults());
        Docket a = docket(b -> b.periodic(every));
        Docket b = docket(c -> c.periodic(every));
        Worker nodeA = node(a, "node-a");
        Worker nodeB = closeAfter(node(b, "node-b"));
        await().atMost(Duration.ofSeconds(15)).until(() -> slots().size() >= 3);
        Worker leader = nodeA.isLeader() ? nodeA : nodeB;
        Worker survivor = leader == nodeA ? nodeB : nodeA;
        int before = slots().size();
        leader.close();
        await().atMost(Duration.ofSeconds(15)).until(() -> survivor.isLeader() && slots().size() >= before + 3);
        nodeA.close();
        nodeB.close();

        List<Long> slots = slots();
        assertThat(slots).doesNotHaveDuplicates();
        for (int i = 1; i < slots.size(); i++) {
            assertThat(slots.get(i) - slots.get(i - 1)).as("no missed slot between %s and %s", slots.get(i - 1),
                    slots.get(i)).isEqualTo(1);
        }
        assertThat(queryLong("SELECT count(*) FROM (SELECT id FROM {s}.job_history UNION ALL SELECT id FROM {s}.jobs) j"))
                .isEqualTo(slots.size());
    }

    /**
     * The leader crashes: its connections die at once, it resigns nothing, and the other node takes
     * over only when the dead leader's lease runs out. Still no slot is enqueued twice or skipped.
     */
    @Test
    @Timeout(60)
    void everySlotIsEnqueuedOnceWhenTheLeaderCrashes() throws Exception {
        PeriodicJob every = new PeriodicJob("every-second", "* * * * * *", ZoneId.of("UTC"), "tick", new Tick("cron"),
                JobOptions.defaults());
        com.zaxxer.hikari.HikariDataSource crashingPool = db.pool(8);
        Docket a = closeAfter(Docket.builder(crashingPool).schema(schema).periodic(every).build());
        a.migrate();
        Worker nodeA = closeAfter(node(a, "node-a"));
        await().atMost(Duration.ofSeconds(10)).until(nodeA::isLeader);
        Docket b = docket(c -> c.periodic(every));
        Worker nodeB = closeAfter(node(b, "node-b"));
        await().atMost(Duration.ofSeconds(15)).until(() -> slots().size() >= 3);
        assertThat(nodeB.isLeader()).isFalse();

        int before = slots().size();
        crashingPool.close();
        await().atMost(Duration.ofSeconds(15)).until(() -> nodeB.isLeader() && slots().size() >= before + 3);

        List<Long> slots = slots();
        assertThat(slots).doesNotHaveDuplicates();
        for (int i = 1; i < slots.size(); i++) {
            assertThat(slots.get(i) - slots.get(i - 1)).as("no missed slot between %s and %s", slots.get(i - 1),
                    slots.get(i)).isEqualTo(1);
        }
    }

    /** The epoch seconds of the slots enqueued so far, in order (from the jobs' unique keys). */
    private List<Long> slots() throws Exception {
        List<Long> slots = new ArrayList<>();
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(("SELECT split_part(unique_key, ':', 3)::bigint AS s FROM {s}.job_history "
                     + "UNION ALL SELECT split_part(unique_key, ':', 3)::bigint FROM {s}.jobs ORDER BY s").replace("{s}", schema))) {
            while (rs.next()) {
                slots.add(rs.getLong(1));
            }
        }
        return slots;
    }

    @Test
    void rejectsBadSchedules() {
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "not a cron", "k", null))
                .withMessageContaining("cron");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("x", "61 * * * *", "k", null))
                .withMessageContaining("invalid cron");
        assertThatIllegalArgumentException().isThrownBy(() -> PeriodicJob.of("bad name", "* * * * *", "k", null))
                .withMessageContaining("name");
        assertThatIllegalArgumentException().isThrownBy(() -> Docket.builder(dataSource())
                .periodic(PeriodicJob.of("x", "* * * * *", "k", null))
                .periodic(PeriodicJob.of("x", "0 * * * *", "k", null))).withMessageContaining("already declared");
    }
}
