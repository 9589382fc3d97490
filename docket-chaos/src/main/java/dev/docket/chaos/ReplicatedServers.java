package dev.docket.chaos;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A primary and a streaming standby of the embedded PostgreSQL 18, cloned with a hot base backup
 * ({@code pg_backup_start}, a file copy, {@code pg_backup_stop}; the embedded binaries have no
 * {@code pg_basebackup}) and fed through a physical replication slot. Synchronous replication
 * ({@code synchronous_standby_names}, {@code synchronous_commit = on}) is the setting under which an
 * acknowledged commit survives the loss of the primary; asynchronous is the measured alternative.
 * The disruption is a failover: {@code pg_ctl stop -m immediate} of the primary, then
 * {@code pg_ctl promote} of the standby. Clients use a multi-host URL with
 * {@code targetServerType=primary}, so they find the new primary by themselves.
 */
final class ReplicatedServers implements FailoverDatabase {

    static final String STANDBY_NAME = "standby";
    /** Settings of both servers: commits wait for the standby when it is synchronous (zonky defaults to off). */
    private static final Map<String, String> CONFIG = Map.of("synchronous_commit", "on");

    private final boolean synchronous;
    private final SingleServer primary;
    private final PgCtl pgCtl;
    private final Path standbyDir;
    private final int standbyPort;

    ReplicatedServers(Path runDir, boolean synchronous) throws Exception {
        this.synchronous = synchronous;
        this.primary = new SingleServer(runDir.resolve("primary"), CONFIG);
        DataSource direct = primary.postgres().getPostgresDatabase();
        this.pgCtl = PgCtl.of(primary.dataDir());
        this.standbyDir = runDir.resolve("standby");
        this.standbyPort = freePort();
        cloneStandby(direct);
        pgCtl.start(standbyDir, standbyPort, serverConfig(), runDir.resolve("standby.log"));
        awaitReplication(direct, "streaming", "state");
        if (synchronous) {
            // Set only on the primary after the clone: a promoted standby with this setting would wait
            // for a standby of its own that does not exist, and every commit would hang.
            Sql.execute(direct, "ALTER SYSTEM SET synchronous_standby_names = '\"" + STANDBY_NAME + "\"'");
            Sql.execute(direct, "SELECT pg_reload_conf()");
            awaitReplication(direct, "sync", "sync_state");
        }
        System.out.printf(Locale.ROOT, "chaos: primary on port %d, %s standby on port %d%n", primary.port(),
                synchronous ? "synchronous" : "asynchronous", standbyPort);
    }

    private static Map<String, String> serverConfig() {
        return Map.of("max_connections", "300", "listen_addresses", "0.0.0.0", "synchronous_commit", "on");
    }

    private void cloneStandby(DataSource primaryDb) throws Exception {
        Sql.execute(primaryDb, "SELECT pg_create_physical_replication_slot('" + STANDBY_NAME + "', true)");
        DataDirectoryCopy.hotBackup(primaryDb, primary.dataDir(), standbyDir);
        Files.createFile(standbyDir.resolve("standby.signal"));
        Files.writeString(standbyDir.resolve("postgresql.auto.conf"), String.format(Locale.ROOT, """
                primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=%s'
                primary_slot_name = '%s'
                """, primary.port(), STANDBY_NAME, STANDBY_NAME), StandardOpenOption.APPEND);
    }

    private static void awaitReplication(DataSource primaryDb, String value, String column) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Sql.count(primaryDb, "SELECT count(*) FROM pg_stat_replication WHERE application_name = '"
                + STANDBY_NAME + "' AND " + column + " = '" + value + "'") == 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the standby did not reach " + column + " = " + value);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public boolean synchronous() {
        return synchronous;
    }

    /** The stated bound: promotion is immediate here, then a producer's reconnect. */
    @Override
    public Duration resumeBound() {
        return Duration.ofSeconds(10);
    }

    @Override
    public String workerUrl(String address) {
        return "jdbc:postgresql://" + address + ":" + primary.port() + "," + address + ":" + standbyPort
                + "/postgres?targetServerType=primary";
    }

    @Override
    public String disruption() {
        return "failover";
    }

    @Override
    public Outage disrupt() throws Exception {
        System.out.println("chaos: failover: killing the primary (pg_ctl stop -m immediate), promoting the standby");
        Instant start = Instant.now();
        pgCtl.stopImmediately(primary.dataDir());
        pgCtl.promote(standbyDir);
        Outage outage = new Outage(disruption(), start, Instant.now());
        System.out.printf(Locale.ROOT, "chaos: standby promoted %d ms after the primary was killed%n",
                outage.length().toMillis());
        return outage;
    }

    @Override
    public OldPrimary openOldPrimary(Path log) throws Exception {
        int port = freePort();
        // Crash recovery must not wait for a synchronous standby: it takes no writes from anyone anyway.
        pgCtl.start(primary.dataDir(), port, Map.of("synchronous_standby_names", "''"), log);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
        ds.setUser("postgres");
        return new OldPrimary(ds, () -> pgCtl.stopFast(primary.dataDir()));
    }

    @Override
    public void close() {
        try {
            pgCtl.stopImmediately(standbyDir);
        } catch (Exception e) {
            System.out.println("chaos: stopping the standby: " + e.getMessage());
        }
        try {
            primary.close();
        } catch (RuntimeException e) {
            // The primary was killed by the failover: nothing left to stop.
        }
    }

}
