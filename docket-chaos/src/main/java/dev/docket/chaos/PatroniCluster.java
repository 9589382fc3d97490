package dev.docket.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Two nodes of the embedded PostgreSQL 18, each managed by its own Patroni (Debian's package), with one
 * etcd ({@link EtcdServer}) as Patroni's store, in synchronous mode ({@code synchronous_mode: true}):
 * Patroni names the standby in {@code synchronous_standby_names}, and only that standby may be promoted.
 * Patroni's REST APIs, etcd and both servers listen on free loopback ports. Clients use a multi-host URL
 * with {@code targetServerType=primary} and find the primary by themselves.
 *
 * <p>The first node's data directory is made by zonky (which unpacks the binaries); Patroni takes that
 * cluster over. The second is a hot base backup of the first ({@link DataDirectoryCopy#hotBackup}),
 * which its Patroni starts as a replica: Patroni's own way, {@code pg_basebackup}, is not among the
 * embedded binaries, and Debian's (15) refuses to stream from a newer server. Patroni also calls
 * {@code pg_controldata} and {@code pg_isready}, which the embedded binaries lack: its {@code bin_dir}
 * holds links to the embedded binaries and to Debian's PostgreSQL 15 tools. {@code pg_controldata} 15
 * reads an 18 control file correctly for every field Patroni uses (18 added a field after them; it warns
 * on standard error that the checksum differs, which Patroni does not read).
 *
 * <p>The planned disruption is {@code patronictl switchover}; the disruption is a failover: the primary's
 * Patroni and PostgreSQL (the postmaster and every backend) killed with SIGKILL, as a lost machine would
 * be, and Patroni promoting the standby once the dead leader's key expires. The killed node stays down.
 * Everything it started is killed when it closes (also on the harness's shutdown), and the nodes' and
 * etcd's data are removed; the logs stay in the run directory.
 */
final class PatroniCluster implements FailoverDatabase {

    static final Path PATRONI = Path.of("/usr/bin/patroni");
    static final Path PATRONICTL = Path.of("/usr/bin/patronictl");
    /** Debian's tools of PostgreSQL 15 that Patroni calls and the embedded binaries lack. */
    static final Path DEBIAN_TOOLS = Path.of("/usr/lib/postgresql/15/bin");
    private static final String SCOPE = "docket-chaos";
    private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(90);

    private final PatroniTimings timings;
    private final Path runDir;
    private final Path dir;
    private final List<Node> nodes = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(1)).build();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread onShutdown = new Thread(this::close, "chaos-patroni-cleanup");
    private EtcdServer etcd;
    private PgCtl pgCtl;
    private Node killed;

    /** One node: its Patroni, the ports of its PostgreSQL and REST API, its data directory and configuration. */
    private static final class Node {
        final String name;
        final int pgPort;
        final int restPort;
        final Path dataDir;
        final Path config;
        Process patroni;

        Node(String name, Path dir) throws IOException {
            this.name = name;
            this.pgPort = ReplicatedServers.freePort();
            this.restPort = ReplicatedServers.freePort();
            this.dataDir = dir.resolve(name);
            this.config = dir.resolve(name + ".yml");
        }
    }

    PatroniCluster(Path runDir, PatroniTimings timings) throws Exception {
        for (Path tool : List.of(PATRONI, PATRONICTL, DEBIAN_TOOLS.resolve("pg_controldata"),
                DEBIAN_TOOLS.resolve("pg_isready"))) {
            if (!Files.isExecutable(tool)) {
                throw new IllegalStateException(tool + " is missing: apt-get install patroni etcd-server postgresql-15");
            }
        }
        this.timings = timings;
        this.runDir = runDir;
        this.dir = runDir.resolve("patroni");
        Files.createDirectories(dir);
        Runtime.getRuntime().addShutdownHook(onShutdown);
        try {
            etcd = new EtcdServer(dir.resolve("etcd"), runDir.resolve("etcd.log"));
            Node first = new Node("node1", dir);
            Node second = new Node("node2", dir);
            nodes.addAll(List.of(first, second));
            SingleServer seed = new SingleServer(first.dataDir, Map.of());
            pgCtl = PgCtl.of(first.dataDir);
            seed.close();
            Path binDir = binDir();
            start(first, binDir);
            awaitWrites(first, Instant.now().plus(HEALTHY_TIMEOUT));
            DataDirectoryCopy.hotBackup(dataSource(first, 60), first.dataDir, second.dataDir);
            start(second, binDir);
            awaitHealthy();
        } catch (Exception | Error e) {
            close();
            throw e;
        }
        System.out.printf(Locale.ROOT, "chaos: Patroni (etcd %s, %s) over %s (PostgreSQL port %d, REST %d) and %s (%d, %d),"
                        + " synchronous mode%n", etcd.clientAddress(), timings.describe(), nodes.get(0).name,
                nodes.get(0).pgPort, nodes.get(0).restPort, nodes.get(1).name, nodes.get(1).pgPort, nodes.get(1).restPort);
    }

    /** Patroni's {@code bin_dir}: the embedded binaries, and Debian's tools that they lack. */
    private Path binDir() throws IOException {
        Path bin = dir.resolve("bin");
        Files.createDirectories(bin);
        for (String tool : List.of("initdb", "pg_ctl", "postgres")) {
            Files.createSymbolicLink(bin.resolve(tool), pgCtl.binDir().resolve(tool));
        }
        for (String tool : List.of("pg_controldata", "pg_isready")) {
            Files.createSymbolicLink(bin.resolve(tool), DEBIAN_TOOLS.resolve(tool));
        }
        return bin;
    }

    private void start(Node node, Path binDir) throws IOException {
        Files.writeString(node.config, config(node, binDir));
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            // PostgreSQL refuses to run as root: Patroni and the servers it starts run in a user namespace, as PgCtl's.
            command.addAll(List.of("unshare", "-U"));
        }
        command.addAll(List.of(PATRONI.toString(), node.config.toString()));
        node.patroni = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(runDir.resolve("patroni-" + node.name + ".log").toFile()))
                .start();
    }

    /**
     * A node's Patroni configuration: the cluster's dynamic settings (used by the first node), and its own.
     * The servers' sockets go in this run's directory, not /tmp: a server killed with SIGKILL leaves its
     * socket's lock file behind, and a later run given the same port by the system would find it and, if its
     * pid was taken again meanwhile, refuse to start.
     */
    private String config(Node node, Path binDir) {
        return String.format(Locale.ROOT, """
                scope: %s
                name: %s
                restapi:
                  listen: 127.0.0.1:%d
                  connect_address: 127.0.0.1:%d
                etcd3:
                  hosts: %s
                watchdog:
                  mode: 'off'
                bootstrap:
                  dcs:
                    ttl: %d
                    loop_wait: %d
                    retry_timeout: %d
                    primary_stop_timeout: %d
                    maximum_lag_on_failover: 1048576
                    synchronous_mode: true
                    postgresql:
                      use_pg_rewind: false
                      use_slots: true
                      parameters:
                        max_connections: 300
                        synchronous_commit: 'on'
                        wal_keep_size: 1GB
                        tcp_keepalives_idle: 1
                        tcp_keepalives_interval: 1
                        tcp_keepalives_count: 3
                postgresql:
                  listen: 127.0.0.1:%d
                  connect_address: 127.0.0.1:%d
                  data_dir: %s
                  bin_dir: %s
                  pgpass: %s
                  parameters:
                    unix_socket_directories: '%s'
                  authentication:
                    superuser:
                      username: postgres
                    replication:
                      username: postgres
                  pg_hba:
                    - local all all trust
                    - host all all 127.0.0.1/32 trust
                    - host replication all 127.0.0.1/32 trust
                """, SCOPE, node.name, node.restPort, node.restPort, etcd.clientAddress(), timings.ttl(),
                timings.loopWait(), timings.retryTimeout(), timings.primaryStopTimeout(), node.pgPort, node.pgPort,
                node.dataDir, binDir, dir.resolve(node.name + ".pgpass"), dir);
    }

    @Override
    public String workerUrl(String address) {
        return "jdbc:postgresql://" + address + ":" + nodes.get(0).pgPort + "," + address + ":" + nodes.get(1).pgPort
                + "/postgres?targetServerType=primary&connectTimeout=3";
    }

    @Override
    public boolean synchronous() {
        return true;
    }

    @Override
    public Duration promoteBound() {
        return timings.promoteBound();
    }

    @Override
    public Duration resumeBound() {
        return timings.failoverResumeBound();
    }

    @Override
    public Duration plannedBound() {
        return timings.switchoverBound();
    }

    @Override
    public Duration plannedResumeBound() {
        return timings.switchoverResumeBound();
    }

    @Override
    public String plannedDisruption() {
        return "switchover";
    }

    @Override
    public String disruption() {
        return "failover";
    }

    /** {@code patronictl switchover} to the synchronous standby; over once the candidate takes writes. */
    @Override
    public Outage disruptPlanned() throws Exception {
        Node leader = awaitHealthy();
        Node candidate = other(leader);
        System.out.printf(Locale.ROOT, "chaos: switchover: patronictl switchover --leader %s --candidate %s%n",
                leader.name, candidate.name);
        Instant start = Instant.now();
        Process ctl = new ProcessBuilder(PATRONICTL.toString(), "-c", leader.config.toString(), "switchover",
                "--leader", leader.name, "--candidate", candidate.name, "--force")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(runDir.resolve("patronictl.log").toFile()))
                .start();
        Instant end = awaitWrites(candidate, start.plus(timings.switchoverBound().multipliedBy(3)));
        if (!ctl.waitFor(60, TimeUnit.SECONDS) || ctl.exitValue() != 0) {
            System.out.println("chaos: patronictl switchover did not succeed; see patronictl.log");
        }
        Outage outage = new Outage(plannedDisruption(), start, end);
        System.out.printf(Locale.ROOT, "chaos: switchover: %s took writes %d ms after patronictl started%n", candidate.name,
                outage.length().toMillis());
        return outage;
    }

    /** SIGKILL of the primary's Patroni and PostgreSQL; over once Patroni promoted the standby and it takes writes. */
    @Override
    public Outage disrupt() throws Exception {
        Node primary = awaitHealthy();
        Node standby = other(primary);
        System.out.printf(Locale.ROOT, "chaos: failover: SIGKILL of %s's Patroni and PostgreSQL (the primary)%n", primary.name);
        Instant start = Instant.now();
        kill(primary);
        killed = primary;
        Instant end = awaitWrites(standby, start.plus(timings.promoteBound().multipliedBy(3)));
        Outage outage = new Outage(disruption(), start, end);
        System.out.printf(Locale.ROOT, "chaos: failover: Patroni promoted %s, taking writes %d ms after the kill%n",
                standby.name, outage.length().toMillis());
        return outage;
    }

    @Override
    public OldPrimary openOldPrimary(Path log) throws Exception {
        int port = ReplicatedServers.freePort();
        // Crash recovery must not wait for a synchronous standby: it takes no writes from anyone anyway.
        pgCtl.start(killed.dataDir, port, Map.of("synchronous_standby_names", "''"), log);
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
        ds.setUser("postgres");
        return new OldPrimary(ds, () -> pgCtl.stopFast(killed.dataDir));
    }

    /** One leader in Patroni's view of the cluster at the end (its {@code /cluster}), the node that survived. */
    @Override
    public void checkAtEnd(ChaosReport r) throws Exception {
        Node survivor = killed == null ? nodes.getFirst() : other(killed);
        HttpResponse<String> cluster = get(survivor, "/cluster");
        List<String> leaders = new ArrayList<>();
        if (cluster != null && cluster.statusCode() == 200) {
            for (JsonNode member : new ObjectMapper().readTree(cluster.body()).path("members")) {
                if ("leader".equals(member.path("role").asText()) && "running".equals(member.path("state").asText())) {
                    leaders.add(member.path("name").asText());
                }
            }
        }
        r.figure("Patroni leaders at the end", leaders.size() + " " + leaders, leaders.equals(List.of(survivor.name)));
    }

    private Node other(Node node) {
        return nodes.get(0) == node ? nodes.get(1) : nodes.get(0);
    }

    /**
     * Waits until one node is Patroni's leader and takes writes and the other is its synchronous standby (the
     * only node Patroni would promote), and returns the leader; fails after {@link #HEALTHY_TIMEOUT}.
     */
    private Node awaitHealthy() throws Exception {
        long deadline = System.nanoTime() + HEALTHY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            for (Node node : nodes) {
                if (status(node, "/primary") == 200 && status(other(node), "/sync") == 200 && takesWrites(node)) {
                    return node;
                }
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new IllegalStateException("Patroni did not reach a leader and a synchronous standby within "
                + HEALTHY_TIMEOUT.toSeconds() + " s; see the patroni-*.log files in " + runDir);
    }

    /** Polls until {@code node} takes writes, and returns when it first did (or the deadline, if it did not). */
    private Instant awaitWrites(Node node, Instant deadline) throws InterruptedException {
        while (Instant.now().isBefore(deadline)) {
            if (takesWrites(node)) {
                return Instant.now();
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        System.out.printf(Locale.ROOT, "chaos: %s did not take writes by %s%n", node.name, deadline);
        return deadline;
    }

    private boolean takesWrites(Node node) {
        try (Connection c = dataSource(node, 2).getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return !rs.getBoolean(1);
        } catch (SQLException e) {
            return false;
        }
    }

    /** A direct connection to one node, whose statements give up after {@code socketTimeout} seconds. */
    private static PGSimpleDataSource dataSource(Node node, int socketTimeout) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:" + node.pgPort + "/postgres?connectTimeout=1&socketTimeout=" + socketTimeout);
        ds.setUser("postgres");
        return ds;
    }

    private int status(Node node, String path) {
        HttpResponse<String> r = get(node, path);
        return r == null ? -1 : r.statusCode();
    }

    private HttpResponse<String> get(Node node, String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.restPort + path))
                    .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** SIGKILLs a node's Patroni, its postmaster and every process of the postmaster, and waits until they are gone. */
    private static void kill(Node node) throws InterruptedException {
        List<ProcessHandle> victims = new ArrayList<>();
        if (node.patroni != null) {
            victims.add(node.patroni.toHandle());
            node.patroni.toHandle().descendants().forEach(victims::add);
        }
        postmaster(node).ifPresent(p -> {
            victims.add(p);
            p.descendants().forEach(victims::add);
        });
        victims.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle p : victims) {
            try {
                p.onExit().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                System.out.println("chaos: process " + p.pid() + " of " + node.name + " did not exit after SIGKILL");
            }
        }
    }

    /** The node's live postmaster, from its pid file (also one started without Patroni, for the audit). */
    private static Optional<ProcessHandle> postmaster(Node node) {
        try {
            long pid = Long.parseLong(Files.readAllLines(node.dataDir.resolve("postmaster.pid")).getFirst().strip());
            return ProcessHandle.of(pid).filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            for (Node node : nodes) {
                kill(node);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (etcd != null) {
            etcd.close();
        }
        for (Node node : nodes) {
            delete(node.dataDir);
        }
        delete(dir.resolve("etcd"));
        delete(dir.resolve("bin"));
        if (Thread.currentThread() != onShutdown) {
            try {
                Runtime.getRuntime().removeShutdownHook(onShutdown);
            } catch (IllegalStateException e) {
                // The JVM is shutting down: the hook runs or ran this.
            }
        }
    }

    private static void delete(Path path) {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(path)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.out.println("chaos: could not remove " + path + ": " + e.getMessage());
        }
    }
}
