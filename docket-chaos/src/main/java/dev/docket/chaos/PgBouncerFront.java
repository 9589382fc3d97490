package dev.docket.chaos;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * PgBouncer (Debian's package) in transaction pooling mode in front of one embedded PostgreSQL:
 * workers and the harness's producer reach the database only through it, except each worker's
 * LISTEN connection, which goes to PostgreSQL directly because a transaction pooler cannot carry a
 * session's LISTEN. The JDBC URL through the pooler turns server-side prepared statements off
 * ({@code prepareThreshold=0}): PgBouncer 1.18 does not track them, and a statement prepared on one
 * server connection would be missing on the next. The disruption restarts PostgreSQL behind the
 * pooler, which must then replace its broken server connections by itself.
 */
final class PgBouncerFront implements ChaosDatabase {

    private static final String BINARY = "/usr/sbin/pgbouncer";

    private final SingleServer server;
    private final Process pgbouncer;
    private final int port;

    PgBouncerFront(Path runDir, SingleServer server) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(BINARY))) {
            throw new IllegalStateException(BINARY + " is missing: apt-get install pgbouncer");
        }
        this.server = server;
        Path dir = runDir.resolve("pgbouncer");
        Files.createDirectories(dir);
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Files.writeString(dir.resolve("userlist.txt"), "\"postgres\" \"\"\n");
        Files.writeString(dir.resolve("pgbouncer.ini"), String.format(Locale.ROOT, """
                [databases]
                postgres = host=127.0.0.1 port=%d dbname=postgres user=postgres
                [pgbouncer]
                listen_addr = 0.0.0.0
                listen_port = %d
                unix_socket_dir =
                auth_type = trust
                auth_file = %s
                pool_mode = transaction
                max_client_conn = 2000
                default_pool_size = 60
                server_login_retry = 1
                ignore_startup_parameters = extra_float_digits
                logfile = %s
                """, server.port(), port, dir.resolve("userlist.txt"), dir.resolve("pgbouncer.log")));
        // PgBouncer refuses to run as root; it reads its files after switching user.
        Files.setPosixFilePermissions(runDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        for (String f : new String[] {"userlist.txt", "pgbouncer.ini"}) {
            Files.setPosixFilePermissions(dir.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
        }
        pgbouncer = new ProcessBuilder(BINARY, "-u", "nobody", dir.resolve("pgbouncer.ini").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("pgbouncer.out").toFile()).start();
        awaitListening();
        System.out.printf(Locale.ROOT, "chaos: PgBouncer %s (transaction pooling) on port %d in front of port %d%n",
                "1.18", port, server.port());
    }

    private void awaitListening() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                if (!pgbouncer.isAlive() || System.nanoTime() > deadline) {
                    throw new IOException("PgBouncer did not start (exit " + (pgbouncer.isAlive() ? "-" : pgbouncer.exitValue())
                            + "); see its log in the run directory", e);
                }
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    @Override
    public String harnessUrl() {
        return server.harnessUrl();
    }

    @Override
    public String producerUrl() {
        return workerUrl("127.0.0.1");
    }

    @Override
    public String workerUrl(String address) {
        return "jdbc:postgresql://" + address + ":" + port + "/postgres?prepareThreshold=0";
    }

    @Override
    public String listenerUrl(String address) {
        return server.workerUrl(address);
    }

    @Override
    public String disruption() {
        return "database restart behind PgBouncer";
    }

    @Override
    public Outage disrupt() throws IOException {
        Outage restart = server.disrupt();
        return new Outage(disruption(), restart.start(), restart.end());
    }

    @Override
    public void close() {
        pgbouncer.destroy();
        try {
            pgbouncer.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.close();
    }
}
