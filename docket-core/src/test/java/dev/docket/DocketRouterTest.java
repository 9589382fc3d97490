package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.test.TestPostgres;
import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Queues routed across two PostgreSQL servers ("orders" on the suite's server, "imaging" on a second
 * one, each its own initdb): routing refused at build time, transactions checked against the database
 * they are on, one worker per database from one declaration.
 */
class DocketRouterTest extends DocketTest {

    record Receipt(String order) {
    }

    record Thumbnail(String image) {
    }

    static final JobKind<Receipt> SEND_RECEIPT = JobKind.of("send_receipt", Receipt.class)
            .defaults(KindDefaults.builder().queue("email").build()).build();
    static final JobKind<Thumbnail> THUMBNAIL = JobKind.of("thumbnail", Thumbnail.class)
            .defaults(KindDefaults.builder().queue("thumbnails").build()).build();

    private final TestPostgres second = TestPostgres.second();
    private String imagingSchema;
    private Docket orders;
    private Docket imaging;

    @BeforeEach
    void twoDatabases() {
        imagingSchema = second.newSchemaName();
        closeAfter(() -> second.dropSchema(imagingSchema));
        orders = docket();
        imaging = closeAfter(Docket.builder(second.dataSource()).schema(imagingSchema).build());
        imaging.migrate();
    }

    private DocketRouter router() {
        return DocketRouter.builder()
                .database("orders", orders)
                .database("imaging", imaging)
                .route("orders", SEND_RECEIPT)
                .route("imaging", THUMBNAIL)
                .routeQueue("ocr", "imaging")
                .build();
    }

    /** Jobs of {@code kind} in the orders database (live and finished). */
    private long inOrders(String kind) {
        return count(dataSource(), schema, kind);
    }

    private long inImaging(String kind) {
        return count(second.dataSource(), imagingSchema, kind);
    }

    private static long count(DataSource ds, String schema, String kind) {
        String sql = "SELECT (SELECT count(*) FROM " + schema + ".jobs WHERE kind = ?)"
                + " + (SELECT count(*) FROM " + schema + ".job_history WHERE kind = ?)";
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, kind);
            ps.setString(2, kind);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void buildRefusesAQueueOrKindRoutedNowhereOrToTwoPlaces() {
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).database("imaging", imaging)
                .routeQueue("email", "orders").routeQueue("email", "imaging").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue 'email' is routed to two databases [orders, imaging]: a queue lives in exactly one");
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).database("imaging", imaging)
                .route("orders", SEND_RECEIPT).routeQueue("email", "imaging").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("queue 'email' is routed to two databases");
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders)
                .routeQueue("email", "orders").kinds(THUMBNAIL).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kind 'thumbnail' goes to queue 'thumbnails', which is routed to no database");
        JobKind<Receipt> receiptElsewhere = SEND_RECEIPT.toBuilder()
                .defaults(KindDefaults.builder().queue("ocr").build()).build();
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).database("imaging", imaging)
                .route("orders", SEND_RECEIPT).route("imaging", receiptElsewhere).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kind 'send_receipt' is declared twice, with queue 'email' in database 'orders' and "
                        + "queue 'ocr' in database 'imaging'");
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).routeQueue("email", "billing").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routed to database 'billing', which is not declared");
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders)
                .routeQueue(DocketRouter.OUTBOX_QUEUE, "orders").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not routed");
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).route("orders", JobKind.named("x")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("routeQueue");
        assertThatThrownBy(() -> DocketRouter.builder().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a router needs at least one database");
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).database("again", orders))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already database 'orders'");
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).database("orders", imaging))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("database 'orders' is declared twice");
        for (String hostile : new String[] {"", "a/b", "x".repeat(64), "ödb", "a b", "a\u0000"}) {
            assertThatThrownBy(() -> DocketRouter.builder().database(hostile, orders))
                    .as(hostile).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("database name must be");
        }
        assertThatThrownBy(() -> DocketRouter.builder().database("orders", orders).defaultDatabase("nope")
                .routeQueue("email", "orders").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("default database 'nope'");
        assertThatThrownBy(() -> DocketRouter.builder().routeQueue("bad queue!", "orders"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEnqueueInATransactionOfTheRightDatabaseCommitsOrRollsBackWithIt() throws Exception {
        DocketRouter router = router();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            router.enqueue(tx, SEND_RECEIPT, new Receipt("o-1"));
            tx.rollback();
            Enqueued kept = router.enqueue(tx, SEND_RECEIPT, new Receipt("o-2"));
            tx.commit();
            assertThat(kept.inserted()).isTrue();
        }
        assertThat(inOrders("send_receipt")).isEqualTo(1);
        assertThat(inImaging("send_receipt")).isZero();

        try (Connection tx = second.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            router.enqueue(tx, "ocr_page", new Thumbnail("p"), JobOptions.builder().queue("ocr").build());
            router.enqueueJobs(tx, List.of(NewJob.of(THUMBNAIL, new Thumbnail("a")), NewJob.of(THUMBNAIL, new Thumbnail("b"))));
            tx.commit();
        }
        assertThat(inImaging("ocr_page")).isEqualTo(1);
        assertThat(inImaging("thumbnail")).isEqualTo(2);
        assertThat(inOrders("thumbnail")).isZero();
    }

    @Test
    void aTransactionOnAnotherDatabaseIsRefusedNamingBothAndNothingIsEnqueued() throws Exception {
        DocketRouter router = router();
        try (Connection tx = second.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> router.enqueue(tx, SEND_RECEIPT, new Receipt("o-1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("docket: kind 'send_receipt' (queue 'email') is routed to database 'orders'")
                    .hasMessageContaining("but the transaction given is on database 'imaging'")
                    .hasMessageContaining("enqueueAcross");
            assertThatThrownBy(() -> router.enqueueJobs(tx, List.of(NewJob.of(SEND_RECEIPT, new Receipt("o")))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("routed to database 'orders'");
            tx.commit();
        }
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> router.enqueue(tx, THUMBNAIL, new Thumbnail("i")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is routed to database 'imaging'")
                    .hasMessageContaining("transaction given is on database 'orders'");
            tx.commit();
        }
        assertThat(inOrders("send_receipt") + inImaging("send_receipt") + inOrders("thumbnail") + inImaging("thumbnail"))
                .isZero();
    }

    /** Same server, same schema name, another database: the oid tells them apart, not the URL's host or port. */
    @Test
    void aTransactionOnAnotherDatabaseOfTheSameServerIsRefused() throws Exception {
        String name = "docket_router_" + schema.substring(schema.length() - 8);
        db.execute("DROP DATABASE IF EXISTS " + name);
        db.execute("CREATE DATABASE " + name);
        closeAfter(() -> db.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl().replaceFirst("/postgres(\\?|$)", "/" + name + "$1"));
        config.setUsername(db.username());
        config.setPassword(db.password());
        config.setMaximumPoolSize(2);
        try (HikariDataSource other = new HikariDataSource(config); Connection tx = other.getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> router().enqueue(tx, SEND_RECEIPT, new Receipt("o")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("database " + name + " (oid")
                    .hasMessageContaining("which this router does not route to");
            tx.rollback();
        }
    }

    @Test
    void enqueuesWithoutATransactionGoToTheirQueuesDatabaseAndUnroutedOrSplitCallsAreRefused() {
        DocketRouter router = router();
        router.enqueue(SEND_RECEIPT, new Receipt("o"));
        router.enqueueAll(THUMBNAIL, List.of(new Thumbnail("a"), new Thumbnail("b")));
        router.enqueue("ocr_page", new Thumbnail("p"), JobOptions.builder().queue("ocr").build());
        assertThat(inOrders("send_receipt")).isEqualTo(1);
        assertThat(inImaging("thumbnail")).isEqualTo(2);
        assertThat(inImaging("ocr_page")).isEqualTo(1);
        assertThat(router.databaseOf(THUMBNAIL)).isEqualTo("imaging");
        assertThat(router.routes()).containsEntry("email", "orders").containsEntry("ocr", "imaging");
        assertThat(router.defaultDatabase()).isEqualTo("orders");

        assertThatThrownBy(() -> router.enqueue("stray", new Receipt("x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("docket: kind 'stray' goes to queue 'default', which is routed to no database");
        assertThatThrownBy(() -> router.enqueueJobs(List.of(NewJob.of(SEND_RECEIPT, new Receipt("o")),
                NewJob.of(THUMBNAIL, new Thumbnail("t")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("go to [orders, imaging]");
        assertThat(inOrders("send_receipt")).isEqualTo(1);
        assertThat(inImaging("thumbnail")).isEqualTo(2);
    }

    @Test
    @Timeout(60)
    void oneDeclarationStartsOneWorkerPerDatabaseWithThatDatabasesQueues() {
        DocketRouter router = router();
        List<String> ran = new CopyOnWriteArrayList<>();
        RoutedWorkers workers = closeAfter(router.worker()
                .queue("email", 2).queue("thumbnails", 2)
                .handler(SEND_RECEIPT, (r, ctx) -> ran.add("receipt " + r.order()))
                .handler(THUMBNAIL, (t, ctx) -> ran.add("thumbnail " + t.image()))
                .start());
        assertThat(workers.byDatabase()).containsOnlyKeys("orders", "imaging");
        long receipt = router.enqueue(SEND_RECEIPT, new Receipt("o")).id();
        long thumbnail = router.enqueue(THUMBNAIL, new Thumbnail("t")).id();
        awaitState(orders, receipt, JobState.COMPLETED, Duration.ofSeconds(20));
        awaitState(imaging, thumbnail, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(ran).containsExactlyInAnyOrder("receipt o", "thumbnail t");
        assertThat(orders.admin().workers()).singleElement()
                .satisfies(w -> assertThat(w.queues()).containsOnlyKeys("email", DocketRouter.OUTBOX_QUEUE));
        assertThat(imaging.admin().workers()).singleElement()
                .satisfies(w -> assertThat(w.queues()).containsOnlyKeys("thumbnails", DocketRouter.OUTBOX_QUEUE));

        assertThatThrownBy(() -> router.worker().queue("nowhere", 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("routed to no database");
        assertThatThrownBy(() -> router.worker().start()).isInstanceOf(IllegalStateException.class);
    }

    /** Pause, drain, switch, resume: no enqueue lands in either database while the queue is in transit. */
    @Test
    @Timeout(60)
    void aQueueMovesByPauseDrainSwitchAndResume() throws Exception {
        DocketRouter router = router();
        CountDownLatch release = new CountDownLatch(1);
        long before = router.enqueue(THUMBNAIL, new Thumbnail("old")).id();

        QueueMove move = router.startMove("thumbnails", "orders");
        assertThat(router.queuesInTransit()).containsExactly(java.util.Map.entry("thumbnails", "orders"));
        assertThatThrownBy(() -> router.enqueue(THUMBNAIL, new Thumbnail("during")))
                .isInstanceOf(DocketException.class)
                .hasMessage("docket: queue 'thumbnails' is being moved from database 'imaging' to 'orders': "
                        + "enqueues are refused until the move completes");
        try (Connection tx = second.dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> router.enqueue(tx, THUMBNAIL, new Thumbnail("during")))
                    .isInstanceOf(DocketException.class);
            tx.rollback();
        }
        assertThatThrownBy(() -> router.startMove("thumbnails", "orders")).isInstanceOf(IllegalStateException.class);
        assertThat(move.remaining()).isEqualTo(1);
        assertThatThrownBy(move::complete).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("still has 1 live jobs in database 'imaging'");
        assertThat(move.awaitDrained(Duration.ofMillis(300))).as("nothing works the queue yet").isFalse();

        closeAfter(imaging.worker().queue("thumbnails", 1).handler(THUMBNAIL, (t, ctx) -> release.await()).start());
        release.countDown();
        assertThat(move.awaitDrained(Duration.ofSeconds(20))).isTrue();
        assertThat(imaging.job(before).orElseThrow().state()).isEqualTo(JobState.COMPLETED);

        List<String> ranInOrders = new CopyOnWriteArrayList<>();
        closeAfter(orders.worker().queue("thumbnails", 1).handler(THUMBNAIL, (t, ctx) -> ranInOrders.add(t.image())).start());
        move.complete();
        assertThat(router.databaseOf("thumbnails")).contains("orders");
        assertThat(router.queuesInTransit()).isEmpty();
        long after = router.enqueue(THUMBNAIL, new Thumbnail("new")).id();
        awaitState(orders, after, JobState.COMPLETED, Duration.ofSeconds(20));
        assertThat(ranInOrders).containsExactly("new");
        assertThat(inImaging("thumbnail")).isEqualTo(1);
        assertThat(inOrders("thumbnail")).isEqualTo(1);
        assertThatThrownBy(move::complete).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aMoveIsRefusedIntoADatabaseThatAlreadyHasTheQueuesJobsAndCanBeCancelled() {
        DocketRouter router = router();
        orders.enqueue("stray", new Thumbnail("x"), JobOptions.builder().queue("ocr").build());
        assertThatThrownBy(() -> router.startMove("ocr", "orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already has 1 live jobs in database 'orders'");
        assertThatThrownBy(() -> router.startMove("ocr", "imaging")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already lives in database 'imaging'");
        assertThatThrownBy(() -> router.startMove("nowhere", "imaging")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> router.startMove("email", "billing")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no database named 'billing'");

        QueueMove move = router.startMove("email", "imaging");
        move.cancel();
        assertThat(router.databaseOf("email")).contains("orders");
        router.enqueue(SEND_RECEIPT, new Receipt("after cancel"));
        assertThat(inOrders("send_receipt")).isEqualTo(1);
        assertThatThrownBy(move::cancel).isInstanceOf(IllegalStateException.class);
    }

    /** The outbox would hold an encrypted kind's payload in clear: such a kind is enqueued on its own database. */
    @Test
    void anEncryptedKindIsRefusedAcrossDatabases() throws Exception {
        DocketRouter router = router();
        JobKind<Thumbnail> secret = THUMBNAIL.toBuilder().encrypted().build();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> router.enqueueAcross(tx, secret, new Thumbnail("x")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("encrypted at rest")
                    .hasMessageContaining("imaging");
            tx.rollback();
        }
        assertThat(inOrders(DocketRouter.OUTBOX_KIND)).isZero();
    }

    @Test
    @Timeout(60)
    void anOutboxJobForwardsIntoTheOtherDatabaseOnlyIfItsTransactionCommits() throws Exception {
        DocketRouter router = router();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            router.enqueueAcross(tx, THUMBNAIL, new Thumbnail("rolled back"));
            tx.rollback();
            Enqueued outbox = router.enqueueAcross(tx, THUMBNAIL, new Thumbnail("committed"),
                    JobOptions.builder().priority(3).metadata("origin", "test").build());
            Enqueued direct = router.enqueueAcross(tx, SEND_RECEIPT, new Receipt("same database"));
            tx.commit();
            assertThat(orders.job(outbox.id()).orElseThrow().kind()).isEqualTo(DocketRouter.OUTBOX_KIND);
            assertThat(orders.job(direct.id()).orElseThrow().kind()).isEqualTo("send_receipt");
        }
        List<Thumbnail> made = new CopyOnWriteArrayList<>();
        closeAfter(router.worker().queue("email", 1).queue("thumbnails", 1)
                .handler(SEND_RECEIPT, (r, ctx) -> { })
                .handler(THUMBNAIL, (t, ctx) -> made.add(t)).start());
        await().atMost(Duration.ofSeconds(20)).until(() -> made.size() == 1);
        assertThat(made).containsExactly(new Thumbnail("committed"));
        assertThat(inImaging("thumbnail")).isEqualTo(1);
        assertThat(inOrders(DocketRouter.OUTBOX_KIND)).isEqualTo(1);
        JobInfo forwarded = imaging.admin().jobs(JobQuery.all().withKind("thumbnail")).stream()
                .map(s -> imaging.job(s.id()).orElseThrow()).findFirst().orElseThrow();
        assertThat(forwarded.priority()).isEqualTo(3);
        assertThat(forwarded.metadata()).contains("\"origin\": \"test\"");

        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            assertThatThrownBy(() -> router.enqueueAcross(tx, THUMBNAIL, new Thumbnail("k"),
                    JobOptions.builder().uniqueKey("mine").build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no unique key");
            tx.rollback();
        }
    }

    /**
     * The worker forwarding an outbox job dies after the forwarded job committed in the target database
     * and before its own completion is written: its connections to the outbox's database go silent (a
     * cut network, as a killed host leaves them), its lease runs out, another worker runs the outbox job
     * again, and the target database still holds exactly one job, though that job finished meanwhile.
     */
    @Test
    @Timeout(90)
    void aWorkerKilledBetweenTheForwardAndItsCompletionLeavesExactlyOneJobInTheTarget() throws Exception {
        DocketRouter router = router();
        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            router.enqueueAcross(tx, THUMBNAIL, new Thumbnail("once"));
            tx.commit();
        }
        List<Thumbnail> made = new CopyOnWriteArrayList<>();
        closeAfter(imaging.worker().queue("thumbnails", 1).handler(THUMBNAIL, (t, ctx) -> made.add(t)).start());

        dev.docket.testing.BlackholeProxy proxy = new dev.docket.testing.BlackholeProxy(db.jdbcUrl());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(proxy.jdbcUrl(db.jdbcUrl()));
        config.setUsername(db.username());
        config.setPassword(db.password());
        config.setMaximumPoolSize(8);
        config.setConnectionTimeout(1_000);
        HikariDataSource viaProxy = closeAfter(new HikariDataSource(config));
        Docket doomedOrders = closeAfter(Docket.builder(viaProxy).schema(schema)
                .networkTimeout(Duration.ofMillis(500)).build());
        CountDownLatch forwarded = new CountDownLatch(1);
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        JobHandler<DocketRouter.OutboxEntry> forward = router.outboxHandler("orders");
        closeAfter(doomedOrders.worker().queue(DocketRouter.OUTBOX_QUEUE, 1).maintenance(false)
                .lease(Duration.ofSeconds(2)).heartbeatInterval(Duration.ofMillis(500))
                .shutdownGrace(Duration.ofMillis(100))
                .handler(DocketRouter.OUTBOX, (entry, ctx) -> {
                    attempts.add(ctx.attempt());
                    forward.handle(entry, ctx);
                    forwarded.countDown();
                    new CountDownLatch(1).await();
                }).start());
        closeAfter(proxy);

        assertThat(forwarded.await(20, TimeUnit.SECONDS)).isTrue();
        proxy.blackhole();
        await().atMost(Duration.ofSeconds(20)).until(() -> made.size() == 1);
        assertThat(inImaging("thumbnail")).as("forwarded and committed before the crash").isEqualTo(1);

        closeAfter(orders.worker().queue(DocketRouter.OUTBOX_QUEUE, 1)
                .maintenanceInterval(Duration.ofMillis(100))
                .handler(DocketRouter.OUTBOX, (entry, ctx) -> {
                    attempts.add(ctx.attempt());
                    forward.handle(entry, ctx);
                }).start());
        long outboxId = orders.admin().jobs(JobQuery.all().withKind(DocketRouter.OUTBOX_KIND)).getFirst().id();
        JobInfo done = awaitState(orders, outboxId, JobState.COMPLETED, Duration.ofSeconds(30));
        assertThat(done.attempt()).isEqualTo(2);
        assertThat(attempts).containsExactly(1, 2);
        assertThat(inImaging("thumbnail")).as("exactly one job in the target database").isEqualTo(1);
        assertThat(made).containsExactly(new Thumbnail("once"));
    }

    @Test
    @Timeout(60)
    void theDoctorNamesEachDatabaseAndFindsAQueueInTwoDatabasesAndAHandlerOnlyInTheOther() {
        DocketRouter router = router();
        DatabasesDoctorReport healthy = router.doctor();
        assertThat(healthy.byDatabase()).containsOnlyKeys("orders", "imaging");
        assertThat(healthy.acrossDatabases()).extracting(DoctorReport.Finding::check, DoctorReport.Finding::severity)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("queue_in_two_databases", DoctorReport.Severity.OK),
                        org.assertj.core.groups.Tuple.tuple("handler_in_other_database", DoctorReport.Severity.OK));

        router.enqueue(THUMBNAIL, new Thumbnail("routed"));
        orders.enqueue(THUMBNAIL, new Thumbnail("misrouted"));
        orders.enqueue("stray", new Thumbnail("x"), JobOptions.builder().queue("misc").build());
        closeAfter(imaging.worker().queue("ocr", 1).handler("stray", Thumbnail.class, (t, ctx) -> { }).start());
        closeAfter(orders.worker().queue("email", 1).handler(SEND_RECEIPT, (r, ctx) -> { }).start());
        await().atMost(Duration.ofSeconds(10)).until(() -> imaging.admin().workers().size() == 1
                && orders.admin().workers().size() == 1);

        DatabasesDoctorReport report = router.doctor();
        assertThat(report.exitCode()).isEqualTo(2);
        assertThat(report.acrossDatabases()).filteredOn(f -> f.severity() == DoctorReport.Severity.PROBLEM)
                .extracting(DoctorReport.Finding::check, DoctorReport.Finding::subject)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("queue_in_two_databases", "queue thumbnails"),
                        org.assertj.core.groups.Tuple.tuple("handler_in_other_database", "kind stray"));
        assertThat(report.acrossDatabases()).filteredOn(f -> f.check().equals("queue_in_two_databases"))
                .singleElement().satisfies(f -> assertThat(f.evidence()).contains("orders=1").contains("imaging=1"));
        assertThat(report.acrossDatabases()).filteredOn(f -> f.check().equals("handler_in_other_database"))
                .singleElement().satisfies(f -> assertThat(f.cause())
                        .isEqualTo("kind 'stray' has 1 unfinished jobs in database 'orders' but a handler only on "
                                + "workers of [imaging]: nothing runs them"));
        assertThat(report.findings()).anySatisfy(e -> {
            assertThat(e.getKey()).isEqualTo("orders");
            assertThat(e.getValue().check()).isEqualTo("unserved_kinds");
        });
    }
}
