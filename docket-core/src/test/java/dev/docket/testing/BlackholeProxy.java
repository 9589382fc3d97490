package dev.docket.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of the test database that can turn into a black hole: {@link #blackhole()}
 * keeps every open connection open but drops what either side sends (as a cut network does: no
 * reset, no error, only silence) and refuses new connections; {@link #heal()} lets new connections
 * through again. The open ones stay silent, as half-open connections after a partition.
 */
public final class BlackholeProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean blackholed;

    /** @param jdbcUrl the database to forward to, {@code jdbc:postgresql://host:port/db...} */
    public BlackholeProxy(String jdbcUrl) throws IOException {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        this.targetHost = uri.getHost();
        this.targetPort = uri.getPort() > 0 ? uri.getPort() : 5432;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("blackhole-accept").start(this::accept);
    }

    /** The JDBC URL of {@code jdbcUrl}'s database through this proxy. */
    public String jdbcUrl(String jdbcUrl) {
        return jdbcUrl.replaceFirst("//[^/]+/", "//127.0.0.1:" + server.getLocalPort() + "/");
    }

    public void blackhole() {
        blackholed = true;
    }

    public void heal() {
        blackholed = false;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (blackholed) {
                    client.close();
                    continue;
                }
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(upstream);
                Thread.ofVirtual().start(() -> pump(client, upstream));
                Thread.ofVirtual().start(() -> pump(upstream, client));
            } catch (IOException e) {
                // Closed, or the database refused: the client sees its connection fail.
            }
        }
    }

    /** Copies bytes from one side to the other, dropping them while blackholed (the connection itself stays open). */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        boolean silenced = false;
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                // Once silenced, a connection stays so: a heal only lets new connections through.
                silenced |= blackholed;
                if (!silenced) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // One side closed: the pump of the other direction ends on its own.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(BlackholeProxy::closeQuietly);
    }
}
