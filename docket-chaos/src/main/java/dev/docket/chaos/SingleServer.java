package dev.docket.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * One embedded PostgreSQL 18 (zonky's binaries, started by its library), which the disruption
 * restarts on the same data directory and port. It listens on every IPv4 address and trusts the chaos
 * hosts' network ({@link HostNetwork#SUBNET}), so that workers in network namespaces reach it too.
 */
final class SingleServer implements ChaosDatabase {

    private final Path dataDir;
    private final Map<String, String> config;
    private EmbeddedPostgres postgres;
    private int port;

    SingleServer(Path dataDir, Map<String, String> config) throws IOException, SQLException {
        this.dataDir = dataDir;
        this.config = Map.copyOf(config);
        start(false);
        trustHostNetwork(dataDir);
        Sql.execute(postgres.getPostgresDatabase(), "SELECT pg_reload_conf()");
    }

    /** Lets the chaos hosts' network in; the embedded server's initdb trusts only the loopback. */
    static void trustHostNetwork(Path dataDir) throws IOException {
        Files.writeString(dataDir.resolve("pg_hba.conf"), "host all all " + HostNetwork.SUBNET + " trust\n",
                StandardOpenOption.APPEND);
    }

    private void start(boolean restart) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("max_connections", "300")
                .setServerConfig("listen_addresses", "0.0.0.0")
                // What guarantees.md advises for partitions: the server drops a client that stopped answering
                // within about 4 s, and with it the row locks of the transaction it had open (an outcome being
                // written, a rescue); otherwise those jobs wait for the heal instead of being rescued.
                .setServerConfig("tcp_keepalives_idle", "1")
                .setServerConfig("tcp_keepalives_interval", "1")
                .setServerConfig("tcp_keepalives_count", "3")
                .setCleanDataDirectory(false)
                .setDataDirectory(dataDir.toFile());
        config.forEach(builder::setServerConfig);
        if (restart) {
            builder.setPort(port);
        }
        postgres = builder.start();
        port = postgres.getPort();
    }

    EmbeddedPostgres postgres() {
        return postgres;
    }

    int port() {
        return port;
    }

    Path dataDir() {
        return dataDir;
    }

    @Override
    public String workerUrl(String address) {
        return "jdbc:postgresql://" + address + ":" + port + "/postgres";
    }

    @Override
    public String disruption() {
        return "database restart";
    }

    @Override
    public Outage disrupt() throws IOException {
        Instant start = Instant.now();
        System.out.println("chaos: restarting PostgreSQL at " + start);
        postgres.close();
        start(true);
        Outage outage = new Outage(disruption(), start, Instant.now());
        System.out.printf(Locale.ROOT, "chaos: PostgreSQL back after %d ms%n", outage.length().toMillis());
        return outage;
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
