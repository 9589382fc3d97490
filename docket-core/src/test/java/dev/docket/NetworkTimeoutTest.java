package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.docket.internal.db.ConnectionLoss;
import dev.docket.internal.db.NetworkTimeout;
import dev.docket.internal.notify.Notifier;
import dev.docket.testing.BlackholeProxy;
import dev.docket.testing.DocketTest;
import dev.docket.testing.OneConnection;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A connection whose network went silent (no reset, no error: a cut link, a vanished host) must
 * become an error within {@link Docket.Builder#networkTimeout}, not a wait without end; the listener
 * must give such a connection up and listen again once the network is back. The connections here
 * go through a {@link BlackholeProxy}. The preemptive timeouts only guard the suite against the hang
 * this prevents; they are minutes, not a measure of speed.
 */
class NetworkTimeoutTest extends DocketTest {

    private static final Duration HANG_GUARD = Duration.ofMinutes(2);

    record Task(int n) {
    }

    private Connection connectThrough(BlackholeProxy proxy) throws Exception {
        return closeAfter(DriverManager.getConnection(proxy.jdbcUrl(db.jdbcUrl())));
    }

    @Test
    void aStatementOnASilentConnectionFailsAsALostConnectionAndTheTimeoutIsGivenBack() throws Exception {
        docket();
        BlackholeProxy proxy = closeAfter(new BlackholeProxy(db.jdbcUrl()));
        Connection connection = connectThrough(proxy);
        Docket docket = closeAfter(Docket.builder(OneConnection.handingOut(connection)).schema(schema)
                .networkTimeout(Duration.ofMillis(300)).build());
        docket.enqueue("k", new Task(1));
        assertThat(connection.getNetworkTimeout()).as("restored after the borrow").isZero();

        proxy.blackhole();
        assertTimeoutPreemptively(HANG_GUARD, () ->
                assertThatThrownBy(() -> docket.enqueue("k", new Task(2)))
                        .isInstanceOf(DocketException.class)
                        .satisfies(e -> assertThat(ConnectionLoss.isConnectionLost(e)).isTrue()));
    }

    @Test
    void theListenerGivesUpASilentConnectionAndListensAgainOnceTheNetworkIsBack() throws Exception {
        Docket docket = docket();
        BlackholeProxy proxy = closeAfter(new BlackholeProxy(db.jdbcUrl()));
        String url = proxy.jdbcUrl(db.jdbcUrl());
        DataSource through = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (p, method, args) -> {
                    if (method.getName().equals("getConnection")) {
                        return DriverManager.getConnection(url);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        Notifier notifier = new Notifier(through, docket.wiring().schema().channel(), Map.of(),
                Duration.ofMillis(200), new NetworkTimeout(Duration.ofMillis(300)));
        // Without the timeout the listener blocks for good, and so would its stop: all of it runs under the guard.
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            notifier.start();
            try {
                await().until(notifier::isListening);
                int before = notifier.backendPid();
                proxy.blackhole();
                await().until(() -> !notifier.isListening());
                proxy.heal();
                await().until(() -> notifier.isListening() && notifier.backendPid() != before);
            } finally {
                notifier.stop();
            }
        });
    }

    @Test
    void theTimeoutIsCheckedWhenConfigured() {
        Docket.Builder b = Docket.builder(dataSource());
        assertThatThrownBy(() -> b.networkTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("networkTimeout must be zero (none) or from 1 ms to 2147483647 ms, was PT-0.001S");
        assertThatThrownBy(() -> b.networkTimeout(Duration.ofNanos(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.networkTimeout(Duration.ofDays(30))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.networkTimeout(null)).isInstanceOf(NullPointerException.class);
        assertThat(b.networkTimeout(Duration.ZERO)).isSameAs(b);
        assertThat(b.networkTimeout(Duration.ofMillis(Integer.MAX_VALUE))).isSameAs(b);
    }
}
