package dev.docket.internal.notify;

import dev.docket.internal.db.NetworkTimeout;
import dev.docket.internal.service.Backoff;
import dev.docket.internal.service.Service;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that LISTENs on the schema's channel and wakes the producer of each queue
 * named in a notification. After any failure (terminated backend, database restart) it reconnects
 * with backoff, LISTENs again and wakes every producer, since notifications sent while it was away
 * are gone. A periodic round trip, bounded by the {@link NetworkTimeout}, catches a connection that
 * died without telling the socket (a half-open connection would otherwise block it forever).
 * Polling stays the correctness backstop; this only makes pickup fast. A stop takes up to
 * {@value #WAIT_MILLIS} ms, the longest a wait for notifications lasts.
 */
public final class Notifier extends Service {

    private static final Logger log = LoggerFactory.getLogger(Notifier.class);
    private static final int WAIT_MILLIS = 250;
    /** Reconnects back off up to about 3 s: the listener only speeds pickup up, and polling goes on meanwhile. */
    private static final Backoff BACKOFF = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(5));

    private final DataSource dataSource;
    private final String channel;
    private final Map<String, Runnable> wakers;
    private final Duration livenessInterval;
    private final NetworkTimeout networkTimeout;
    private volatile boolean listening;
    private volatile Connection connection;
    private volatile int previousTimeout = -1;

    /** @param wakers per queue name, what to call when that queue has new jobs */
    public Notifier(DataSource dataSource, String channel, Map<String, Runnable> wakers, Duration livenessInterval,
                    NetworkTimeout networkTimeout) {
        super("docket-notifier", BACKOFF, log);
        this.networkTimeout = networkTimeout;
        this.dataSource = dataSource;
        this.channel = channel;
        this.wakers = Map.copyOf(wakers);
        this.livenessInterval = livenessInterval;
    }

    @Override
    protected void afterStop() {
        listening = false;
        closeQuietly();
    }

    /** Whether the listening connection is up now. */
    public boolean isListening() {
        return listening;
    }

    /** The backend pid of the listening connection, or -1; tests use it to terminate the connection. */
    public int backendPid() {
        Connection c = connection;
        try {
            return c == null ? -1 : c.unwrap(PGConnection.class).getBackendPID();
        } catch (SQLException e) {
            return -1;
        }
    }

    @Override
    protected void run() {
        while (isRunning()) {
            try {
                roundStarted();
                listen();
                roundEnded();
                succeeded();
                wakeAll();
                receive();
            } catch (SQLException | RuntimeException e) {
                roundEnded();
                listening = false;
                closeQuietly();
                if (!isRunning()) {
                    return;
                }
                pause(failed(e));
            }
        }
    }

    /** Connects and LISTENs: a round, which waits as long as the pool makes it wait for a connection. */
    private void listen() throws SQLException {
        Connection c = dataSource.getConnection();
        connection = c;
        previousTimeout = networkTimeout.apply(c);
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
            st.execute("LISTEN \"" + channel + "\"");
        }
        listening = true;
    }

    private void receive() throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        long nextCheck = System.nanoTime() + livenessInterval.toNanos();
        while (isRunning()) {
            PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
            if (notifications != null) {
                for (PGNotification n : notifications) {
                    Runnable waker = wakers.get(n.getParameter());
                    if (waker != null) {
                        waker.run();
                    }
                }
            }
            if (System.nanoTime() - nextCheck > 0) {
                try (Statement st = connection.createStatement()) {
                    st.execute("SELECT 1");
                }
                nextCheck = System.nanoTime() + livenessInterval.toNanos();
            }
        }
    }

    private void wakeAll() {
        wakers.values().forEach(Runnable::run);
    }

    private void closeQuietly() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try (c) {
                if (!c.isClosed()) {
                    // A pooled connection goes back to the pool: it must not keep listening there.
                    try (Statement st = c.createStatement()) {
                        st.execute("UNLISTEN *");
                    }
                    networkTimeout.restore(c, previousTimeout);
                }
            } catch (SQLException | RuntimeException e) {
                log.debug("docket: closing the listener connection: {}", e.toString());
            }
        }
    }
}
