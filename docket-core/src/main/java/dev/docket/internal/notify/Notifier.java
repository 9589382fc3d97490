package dev.docket.internal.notify;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that LISTENs on the schema's channel and wakes the producer of each queue
 * named in a notification. After any failure (terminated backend, database restart) it reconnects
 * with backoff, LISTENs again and wakes every producer, since notifications sent while it was away
 * are gone. A periodic round trip catches a connection that died without telling the socket.
 * Polling stays the correctness backstop; this only makes pickup fast.
 */
public final class Notifier {

    private static final Logger log = LoggerFactory.getLogger(Notifier.class);
    private static final int WAIT_MILLIS = 250;

    private final DataSource dataSource;
    private final String channel;
    private final Map<String, Runnable> wakers;
    private final Duration livenessInterval;
    private volatile boolean running;
    private volatile boolean listening;
    private volatile int consecutiveFailures;
    private volatile Connection connection;
    private Thread thread;

    /** @param wakers per queue name, what to call when that queue has new jobs */
    public Notifier(DataSource dataSource, String channel, Map<String, Runnable> wakers, Duration livenessInterval) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wakers = Map.copyOf(wakers);
        this.livenessInterval = livenessInterval;
    }

    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().daemon().name("docket-notifier").start(this::loop);
    }

    public void stop() {
        Thread t;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            t = thread;
        }
        try {
            t.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        listening = false;
        closeQuietly();
    }

    /** Whether the listening connection is up now. */
    public boolean isListening() {
        return listening;
    }

    public int consecutiveFailures() {
        return consecutiveFailures;
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

    private void loop() {
        while (running) {
            try {
                listen();
                consecutiveFailures = 0;
                wakeAll();
                receive();
            } catch (SQLException | RuntimeException e) {
                listening = false;
                closeQuietly();
                if (!running) {
                    return;
                }
                int failures = ++consecutiveFailures;
                if (failures == 1 || failures % 10 == 0) {
                    log.warn("docket: listener connection lost ({} in a row), reconnecting: {}", failures, e.toString());
                }
                pause(Math.min(5_000L, 100L << Math.min(failures - 1, 6)));
            }
        }
    }

    private void listen() throws SQLException {
        Connection c = dataSource.getConnection();
        connection = c;
        c.setAutoCommit(true);
        try (Statement st = c.createStatement()) {
            st.execute("LISTEN \"" + channel + "\"");
        }
        listening = true;
    }

    private void receive() throws SQLException {
        PGConnection pg = connection.unwrap(PGConnection.class);
        long nextCheck = System.nanoTime() + livenessInterval.toNanos();
        while (running) {
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
                }
            } catch (SQLException | RuntimeException e) {
                log.debug("docket: closing the listener connection: {}", e.toString());
            }
        }
    }

    private void pause(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (running && System.nanoTime() < deadline) {
            try {
                Thread.sleep(Math.min(50, millis));
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
