package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The enqueue forms without a Connection join a transaction managed elsewhere through {@link ExternalTransactions}. */
class ExternalTransactionsTest extends DocketTest {

    record Mail(String to) {
    }

    /** A transaction manager in miniature: one connection per thread, after-commit actions run by commit(). */
    static final class ThreadTransactions implements ExternalTransactions {
        private final ThreadLocal<Connection> current = new ThreadLocal<>();
        private final ThreadLocal<List<Runnable>> afterCommit = ThreadLocal.withInitial(ArrayList::new);
        int released;

        void begin(Connection c) throws SQLException {
            c.setAutoCommit(false);
            current.set(c);
        }

        void commit() throws SQLException {
            current.get().commit();
            end();
            afterCommit.get().forEach(Runnable::run);
            afterCommit.remove();
        }

        void rollback() throws SQLException {
            current.get().rollback();
            end();
            afterCommit.remove();
        }

        private void end() throws SQLException {
            current.get().setAutoCommit(true);
            current.remove();
        }

        @Override
        public Connection currentConnection() {
            return current.get();
        }

        @Override
        public void release(Connection connection) {
            released++;
        }

        @Override
        public void afterCommit(Runnable action) {
            afterCommit.get().add(action);
        }
    }

    @Test
    void aJobEnqueuedInARolledBackExternalTransactionDoesNotExist() throws Exception {
        ThreadTransactions tx = new ThreadTransactions();
        Docket docket = docket(b -> b.externalTransactions(tx));
        long id;
        try (Connection c = dataSource().getConnection()) {
            tx.begin(c);
            id = docket.enqueue("mail", new Mail("a@b.c"));
            assertThat(docket.job(id)).as("not visible outside the open transaction").isEmpty();
            tx.rollback();
        }
        assertThat(docket.job(id)).isEmpty();
        assertThat(tx.released).isEqualTo(1);
    }

    @Test
    void aJobEnqueuedInACommittedExternalTransactionIsRunAndLocalWorkersAreWokenAfterTheCommit() throws Exception {
        ThreadTransactions tx = new ThreadTransactions();
        Docket docket = docket(b -> b.externalTransactions(tx).notifyOnEnqueue(false));
        CountDownLatch ran = new CountDownLatch(2);
        // Notifications off and an hour's poll: only a local wake-up starts a claim.
        worker(docket, w -> w.queue("default", 2).pollInterval(Duration.ofHours(1)).listen(false)
                .handler("mail", Mail.class, (m, ctx) -> ran.countDown()));
        // Once a job enqueued on its own has run, the producer's start-up claim is behind it: it waits.
        awaitState(docket, docket.enqueue("mail", new Mail("warm@up")), JobState.COMPLETED, Duration.ofSeconds(30));
        List<Enqueued> jobs;
        try (Connection c = dataSource().getConnection()) {
            tx.begin(c);
            jobs = docket.enqueueAll(JobKind.of("mail", Mail.class).build(), List.of(new Mail("a@b.c")));
            assertThat(ran.getCount()).as("no job runs before the commit").isEqualTo(1);
            assertThat(tx.afterCommit.get()).as("one wake-up waits for the commit").hasSize(1);
            tx.commit();
        }
        assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(awaitState(docket, jobs.getFirst().id(), JobState.COMPLETED, Duration.ofSeconds(30))).isNotNull();
    }

    @Test
    void withoutATransactionTheEnqueueCommitsOnItsOwn() {
        ThreadTransactions tx = new ThreadTransactions();
        Docket docket = docket(b -> b.externalTransactions(tx));
        long id = docket.enqueue("mail", new Mail("a@b.c"));
        assertThat(docket.job(id)).isPresent();
        assertThat(tx.released).isZero();
    }

    @Test
    void theFormsWithAConnectionIgnoreTheExternalTransaction() throws Exception {
        ThreadTransactions tx = new ThreadTransactions();
        Docket docket = docket(b -> b.externalTransactions(tx));
        long id;
        try (Connection external = dataSource().getConnection(); Connection own = dataSource().getConnection()) {
            tx.begin(external);
            id = docket.enqueue(own, "mail", new Mail("a@b.c"));
            tx.rollback();
        }
        assertThat(docket.job(id)).isPresent();
    }

    @Test
    void aFailedInsertLeavesTheExternalTransactionToItsOwner() throws Exception {
        ThreadTransactions tx = new ThreadTransactions();
        Docket docket = docket(b -> b.externalTransactions(tx).maxPayloadBytes(16));
        try (Connection c = dataSource().getConnection()) {
            tx.begin(c);
            assertThatThrownBy(() -> docket.enqueue("mail", new Mail("far-too-long-for-sixteen-bytes")))
                    .isInstanceOf(IllegalArgumentException.class);
            long id = docket.enqueue("mail", new Mail("a"));
            tx.commit();
            assertThat(docket.job(id)).isPresent();
        }
    }

    @Test
    void externalTransactionsMustNotBeNull() {
        assertThatThrownBy(() -> Docket.builder(dataSource()).externalTransactions(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("transactions");
    }

    @Test
    void aScheduledJobWakesNobodyAtTheCommit() throws Exception {
        ThreadTransactions tx = new ThreadTransactions();
        Docket docket = docket(b -> b.externalTransactions(tx));
        try (Connection c = dataSource().getConnection()) {
            tx.begin(c);
            docket.enqueue("mail", new Mail("a@b.c"), JobOptions.builder().delay(Duration.ofHours(1)).build());
            assertThat(tx.afterCommit.get()).isEmpty();
            tx.commit();
        }
    }

    /** A signal sent without a Connection joins the external transaction: rolled back, it never arrives. */
    @Test
    void aSignalSentInAnExternalTransactionArrivesOnlyIfItCommits() throws Exception {
        ThreadTransactions tx = new ThreadTransactions();
        Docket docket = docket(b -> b.externalTransactions(tx));
        long id = docket.enqueue("mail", new Mail("a@b.c"), JobOptions.builder().awaitSignal("approved").build());
        try (Connection c = dataSource().getConnection()) {
            tx.begin(c);
            assertThat(docket.signal(id, "approved", null)).isEqualTo(SignalDelivery.RESUMED);
            tx.rollback();
        }
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.WAITING);
        try (Connection c = dataSource().getConnection()) {
            tx.begin(c);
            docket.signal(id, "approved", null);
            assertThat(docket.job(id).orElseThrow().state()).as("not visible before the commit").isEqualTo(JobState.WAITING);
            tx.commit();
        }
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);
        assertThat(tx.released).as("each signal gave its connection back").isEqualTo(2);
    }
}
