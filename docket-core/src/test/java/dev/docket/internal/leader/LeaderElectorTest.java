package dev.docket.internal.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.docket.Docket;
import dev.docket.Worker;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.DocketTest;
import dev.docket.testing.HookedDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Leader election: the single statement with an explicit clock (River #197: re-election must not
 * always succeed), two electors driven by {@code runOnce()}, a leader that loses the database, and
 * several workers electing one maintainer.
 */
class LeaderElectorTest extends DocketTest {

    private static final String ROLE = "maintainer";
    private static final Instant T0 = Instant.parse("2031-03-04T05:06:07.123456Z");
    /** How long a test waits for what must happen before it calls it lost (never reached when all is well). */
    private static final Duration WAIT = Duration.ofSeconds(30);

    record Noop(String name) {
    }

    private Database store(DataSource ds) {
        docket(); // migrates the test schema
        return new Database(ds, new SchemaName(schema), PayloadCodec.defaultMapper());
    }

    /**
     * Node B, on connections that work, tries to take the role by the database's clock until it gets it
     * (after {@code eachRound}, every time). At that moment {@code a} must no longer count itself the
     * leader, and its listener must have heard so first: B's election comes after A's deposition in
     * {@code r}'s events.
     */
    private void rivalTakesOverOnlyAfter(Database rival, LeaderElector a, Recorder r, Duration ttl, Runnable eachRound) {
        boolean aLeadsAtTakeover = await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
            eachRound.run();
            Optional<Long> term = rival.leaders().attemptElect(ROLE, "node-b", ttl, null);
            if (term.isEmpty()) {
                return null;
            }
            r.events.add("node-b elected");
            return a.isLeader();
        }, Objects::nonNull);
        assertThat(aLeadsAtTakeover).as("A counts itself the leader when B takes the role").isFalse();
        assertThat(r.events).as("A's listener heard it was deposed before B was elected")
                .containsExactly("deposed", "node-b elected");
    }

    @Test
    void electionWithAStubbedClockHandsTheRoleOverOnlyAfterTheLeaseLapses() throws Exception {
        Database store = store(dataSource());
        Duration ttl = Duration.ofSeconds(10);

        assertThat(store.leaders().attemptElect(ROLE, "A", ttl, T0)).contains(1L);
        assertThat(store.leaders().attemptElect(ROLE, "B", ttl, T0.plusSeconds(1)))
                .as("B must not take a role whose lease is live").isEmpty();
        assertThat(store.leaders().attemptElect(ROLE, "A", ttl, T0.plusSeconds(2)))
                .as("A renews in the same term").contains(1L);
        // A's renewal at t0+2s holds the role until t0+12s: B at t0+11s still gets nothing.
        assertThat(store.leaders().attemptElect(ROLE, "B", ttl, T0.plusSeconds(11))).isEmpty();

        // A stopped renewing; at t0+ttl+3s its lease (until t0+12s) has lapsed.
        Instant takeover = T0.plus(ttl).plusSeconds(3);
        assertThat(store.leaders().attemptElect(ROLE, "B", ttl, takeover))
                .as("B takes the lapsed role with a new term").contains(2L);
        assertThat(store.leaders().attemptElect(ROLE, "A", ttl, takeover))
                .as("the old leader's renewal must fail once another node holds the role").isEmpty();
        assertThat(store.leaders().attemptElect(ROLE, "A", ttl, takeover.plusSeconds(5))).isEmpty();
        assertThat(store.leaders().attemptElect(ROLE, "B", ttl, takeover.plusSeconds(5)))
                .as("B renews in its own term").contains(2L);

        assertThat(leaderRow()).isEqualTo("B/2");
    }

    @Test
    void aLeaderWhoseOwnLeaseLapsedIsReElectedInANewTerm() throws Exception {
        Database store = store(dataSource());
        Duration ttl = Duration.ofSeconds(10);

        assertThat(store.leaders().attemptElect(ROLE, "A", ttl, T0)).contains(1L);
        assertThat(store.leaders().attemptElect(ROLE, "A", ttl, T0.plusSeconds(9))).contains(1L);
        // Renewed at t0+9s, so the lease runs until t0+19s; t0+25s is after it lapsed.
        assertThat(store.leaders().attemptElect(ROLE, "A", ttl, T0.plusSeconds(25)))
                .as("a lapse ends a term even when the same node takes the role again").contains(2L);
    }

    @Test
    void exactlyOneOfTwoElectorsLeadsAndAStoppedLeaderHandsOverAtOnce() throws Exception {
        Database store = store(dataSource());
        // A long lease: B can take over quickly only because A resigns, not because its lease lapsed.
        Duration ttl = Duration.ofSeconds(30);
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        LeaderElector a = new LeaderElector(store, ROLE, "node-a", ttl, ra);
        LeaderElector b = new LeaderElector(store, ROLE, "node-b", ttl, rb);
        closeAfter(a::stop);
        closeAfter(b::stop);

        a.runOnce();
        b.runOnce();
        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        assertThat(a.term()).isEqualTo(1);
        assertThat(b.term()).isZero();

        // More rounds renew without new callbacks and without changing who leads.
        for (int i = 0; i < 3; i++) {
            b.runOnce();
            a.runOnce();
        }
        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        assertThat(ra.elected).containsExactly(1L);
        assertThat(ra.deposed).hasValue(0);
        assertThat(rb.elected).isEmpty();
        assertThat(rb.deposed).hasValue(0);

        a.start();
        a.stop();
        assertThat(a.isLeader()).isFalse();
        assertThat(ra.deposed).as("stop() deposes the leader").hasValue(1);
        assertThat(leaderRowHolder()).as("stop() resigns the role").isNotEqualTo("node-a");

        b.runOnce();
        assertThat(b.isLeader()).as("B takes over at its next round, long before A's 30 s lease ends").isTrue();
        assertThat(rb.elected).hasSize(1);
        assertThat(a.isLeader()).isFalse();
        assertThat(ra.elected).containsExactly(1L);
        assertThat(ra.deposed).hasValue(1);
    }

    @Test
    void theTermKeepsRisingWhenAResignedRoleIsTakenOver() throws Exception {
        Database store = store(dataSource());
        Duration ttl = Duration.ofSeconds(30);
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        LeaderElector a = new LeaderElector(store, ROLE, "node-a", ttl, ra);
        LeaderElector b = new LeaderElector(store, ROLE, "node-b", ttl, rb);
        closeAfter(a::stop);
        closeAfter(b::stop);

        a.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLeader);
        long termOfA = a.term();
        a.stop();
        b.runOnce();

        assertThat(b.isLeader()).isTrue();
        // A term identifies one leadership: the next holder's must be newer, or a stale action of
        // A's term cannot be told from B's.
        assertThat(b.term()).as("term of the leader after A (which had term %d) resigned", termOfA)
                .isGreaterThan(termOfA);
    }

    /**
     * A leader whose rounds fail keeps the role for 2/3 of its lease, then steps down before the lease
     * runs out: another node that keeps trying by the database's clock gets the role only after that.
     */
    @Test
    void aLeaderThatCannotReachTheDatabaseStepsDownAfterTwoThirdsOfItsLease() throws Exception {
        FlakyDataSource ds = new FlakyDataSource(dataSource());
        Database store = store(ds.dataSource);
        Duration ttl = Duration.ofSeconds(3);
        Recorder r = new Recorder();
        LeaderElector a = new LeaderElector(store, ROLE, "node-a", ttl, r);
        closeAfter(a::stop);

        long before = System.nanoTime();
        a.runOnce();
        assertThat(a.isLeader()).isTrue();

        ds.mode = Mode.FAIL;
        assertThatThrownBy(a::runOnce).isInstanceOf(SQLException.class);
        assertThat(a.isLeader()).as("one failed round right after a renewal keeps the role").isTrue();
        assertThat(r.deposed).hasValue(0);

        Database rival = store(dataSource());
        rivalTakesOverOnlyAfter(rival, a, r, ttl, () -> assertThatThrownBy(a::runOnce).isInstanceOf(SQLException.class));
        assertThat(r.deposed).hasValue(1);
        assertThat(Duration.ofNanos(r.deposedAtNanos - before))
                .as("not before 2/3 of the lease without a renewal")
                .isGreaterThanOrEqualTo(ttl.multipliedBy(2).dividedBy(3));
        rival.leaders().resign(ROLE, "node-b");

        ds.mode = Mode.OK;
        a.runOnce();
        assertThat(a.isLeader()).as("re-elected once the database is back").isTrue();
        assertThat(r.elected).hasSize(2);
    }

    @Test
    void aLeaderWhoseDatabaseCallsHangStepsDownBeforeItsLeaseRunsOut() throws Exception {
        FlakyDataSource ds = new FlakyDataSource(dataSource());
        Database store = store(ds.dataSource);
        Duration ttl = Duration.ofSeconds(3);
        Recorder r = new Recorder();
        LeaderElector a = new LeaderElector(store, ROLE, "node-a", ttl, r);
        closeAfter(a::stop);
        closeAfter(ds.unhang::countDown); // runs before a.stop(), so stop() can end the hung round

        a.start();
        await().atMost(WAIT).until(a::isLeader);
        // A partitioned network or a pool waiting its connectionTimeout (30 s by default in
        // HikariCP) blocks a call for far longer than the lease.
        ds.mode = Mode.HANG;

        rivalTakesOverOnlyAfter(store(dataSource()), a, r, ttl, () -> { });
        assertThat(r.deposed).as("the leader stepped down while its renewal hung").hasValue(1);
    }

    @Test
    void aStoppedElectorCanBeStartedAgainAndLeadsAgainInANewTerm() throws Exception {
        Database store = store(dataSource());
        Recorder r = new Recorder();
        LeaderElector a = new LeaderElector(store, ROLE, "node-a", Duration.ofSeconds(3), r);
        closeAfter(a::stop);

        a.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLeader);
        long firstTerm = a.term();
        a.stop();
        a.stop();
        assertThat(a.isLeader()).isFalse();
        assertThat(r.deposed).hasValue(1);

        a.start();
        a.start();
        await("leader again after a restart").atMost(Duration.ofSeconds(5)).until(a::isLeader);
        assertThat(a.term()).as("the resigned term is not reused").isGreaterThan(firstTerm);
        a.runOnce(); // a renewal after the restart arms the step-down watchdog again, and must not fail
        assertThat(a.consecutiveFailures()).isZero();
        a.stop();

        assertThat(r.elected).hasSize(2);
        assertThat(r.deposed).hasValue(2);
        assertThat(leaderRowHolder()).as("the second stop resigned too").isNull();
    }

    @Test
    void theListenerIsNeverCalledWhileTheElectorHoldsItsMonitor() throws Exception {
        Database store = store(dataSource());
        List<String> calls = new CopyOnWriteArrayList<>();
        LeaderElector[] holder = new LeaderElector[1];
        LeaderElector a = new LeaderElector(store, ROLE, "node-a", Duration.ofSeconds(30), new LeaderElector.Listener() {
            @Override
            public void elected(long term) {
                calls.add("elected, monitor held: " + Thread.holdsLock(holder[0]));
            }

            @Override
            public void deposed() {
                calls.add("deposed, monitor held: " + Thread.holdsLock(holder[0]));
            }
        });
        holder[0] = a;
        closeAfter(a::stop);

        a.runOnce();
        // Another node takes the role: this round steps down.
        execute("UPDATE {s}.leaders SET leader_id = 'node-b', term = term + 1 WHERE role = 'maintainer'");
        a.runOnce();
        a.runOnce();
        execute("DELETE FROM {s}.leaders");
        a.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLeader);
        a.stop();

        assertThat(calls).containsExactly("elected, monitor held: false", "deposed, monitor held: false",
                "elected, monitor held: false", "deposed, monitor held: false");
    }

    /**
     * Three workers elect one maintainer; when it stops, another takes over at its next round: its
     * election, by the database's clock, comes before the lease the stopped one last renewed ran out.
     */
    @Test
    void threeWorkersElectExactlyOneMaintainerAndFailOverWhenItStops() {
        Duration lease = Duration.ofSeconds(6);
        List<Worker> workers = Stream.of(1, 2, 3).map(i -> {
            Docket docket = docket();
            return worker(docket, w -> w.queue("default", 1).leaderLease(lease)
                    .handler("noop", Noop.class, (n, ctx) -> {
                    }));
        }).toList();

        Worker leader = await().atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> onlyLeader(workers), Optional::isPresent).orElseThrow();
        await().during(Duration.ofMillis(1500)).atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> onlyLeader(workers), l -> l.isPresent() && l.get() == leader);
        assertThat(leaderRowHolder()).isEqualTo(leader.workerId());
        long leaseEnd = queryLong("SELECT (extract(epoch FROM expires_at) * 1000000)::bigint FROM {s}.leaders "
                + "WHERE role = 'maintainer'");

        leader.close();
        List<Worker> rest = workers.stream().filter(w -> w != leader).toList();
        Worker next = await().atMost(WAIT).pollInterval(Duration.ofMillis(10))
                .until(() -> onlyLeader(rest), Optional::isPresent).orElseThrow();
        assertThat(leader.isLeader()).isFalse();
        assertThat(queryLong("SELECT count(*) FROM {s}.leaders WHERE role = 'maintainer' AND leader_id = ? "
                + "AND elected_at < to_timestamp(? / 1e6)", next.workerId(), leaseEnd))
                .as("the next leader was elected before the stopped one's lease ran out").isOne();
        await().during(Duration.ofSeconds(1)).atMost(WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> onlyLeader(rest), l -> l.isPresent() && l.get() == next);
        assertThat(leaderRowHolder()).isEqualTo(next.workerId());
    }

    /** The one leader among {@code workers}; fails if there are two or more. */
    private static Optional<Worker> onlyLeader(List<Worker> workers) {
        List<Worker> leaders = workers.stream().filter(Worker::isLeader).toList();
        assertThat(leaders).as("leaders at one instant").hasSizeLessThanOrEqualTo(1);
        return leaders.stream().findFirst();
    }

    private String leaderRow() throws SQLException {
        return query("SELECT leader_id || '/' || term FROM " + schema + ".leaders WHERE role = 'maintainer'");
    }

    private String leaderRowHolder() {
        try {
            return query("SELECT leader_id FROM " + schema + ".leaders WHERE role = 'maintainer' AND expires_at > now()");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private String query(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(sql);
             ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    static final class Recorder implements LeaderElector.Listener {
        final List<Long> elected = new CopyOnWriteArrayList<>();
        final AtomicInteger deposed = new AtomicInteger();
        final Queue<String> events = new ConcurrentLinkedQueue<>();
        volatile long deposedAtNanos;

        @Override
        public void elected(long term) {
            elected.add(term);
        }

        @Override
        public void deposed() {
            deposedAtNanos = System.nanoTime();
            deposed.incrementAndGet();
            events.add("deposed");
        }
    }

    enum Mode { OK, FAIL, HANG }

    /** A data source that, on demand, refuses connections or blocks until released. */
    static final class FlakyDataSource {
        final CountDownLatch unhang = new CountDownLatch(1);
        final DataSource dataSource;
        volatile Mode mode = Mode.OK;

        FlakyDataSource(DataSource delegate) {
            this.dataSource = new HookedDataSource(delegate, this::beforeBorrow, c -> { });
        }

        private void beforeBorrow() throws SQLException {
            switch (mode) {
                case FAIL -> throw new SQLException("database unreachable (test)", "08001");
                case HANG -> {
                    try {
                        unhang.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new SQLException("connection timed out (test)", "08001");
                }
                default -> { }
            }
        }
    }
}
