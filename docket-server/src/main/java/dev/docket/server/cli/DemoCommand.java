package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.QueueStats;
import dev.docket.Worker;
import dev.docket.internal.db.DatabaseUrl;
import dev.docket.server.DocketServer;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.server.metrics.QueueMetrics;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * {@code docket demo}: everything on one machine. Embedded PostgreSQL, the server with a generated
 * admin token, the maintenance leader, a producer of realistic traffic, and worker processes (separate
 * JVMs) that one can {@code kill -9} to watch their jobs come back after the lease.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs Docket on this machine with nothing to install: embedded PostgreSQL 18, the server "
                + "and dashboard on 127.0.0.1, the maintenance leader, a producer enqueueing a realistic mix of "
                + "jobs (fast, slow, flaky, doomed, scheduled; several tenants, one bursting now and then), and "
                + "worker processes as separate JVMs.",
                "",
                "Kill a worker with kill -9 PID (the pids are printed): its running jobs come back after the lease "
                        + "and the demo starts a new worker 5 s later. Ctrl-C stops everything: the workers "
                        + "drain, then the server and PostgreSQL stop. The database is deleted on exit; killed with kill -9, "
                        + "the demo's PostgreSQL, workers and database are gone within 5 s."})
final class DemoCommand implements Callable<Integer> {

    private static final String HOST = "127.0.0.1";
    private static final String SCHEMA = "docket";

    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080", order = 1,
            description = "The dashboard and API port on 127.0.0.1 (default: ${DEFAULT-VALUE}); worker N serves its "
                    + "metrics on PORT+N.")
    int port;

    @Option(names = "--jobs-per-second", paramLabel = "N", defaultValue = "25", order = 2,
            description = "The producer's steady rate, besides the bursts (default: ${DEFAULT-VALUE}; 0 for none).")
    double jobsPerSecond;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "3", order = 3,
            description = "Worker processes (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "10s", order = 4,
            converter = Converters.DurationConverter.class,
            description = "The workers' lease: how long a killed worker's jobs wait to run again (default: ${DEFAULT-VALUE}).")
    Duration lease;

    @Option(names = "--second-database", order = 5,
            description = "Also start a second embedded PostgreSQL, served as database 'imaging' beside 'default': "
                    + "the dashboard's Databases page, /api/databases, jobs as DATABASE/ID and a database label on "
                    + "every metric; it gets a fifth of the traffic and an in-process worker.")
    boolean secondDatabase;

    /** The second database's name in the demo. */
    static final String SECOND = "imaging";

    final Lifetime lifetime = new Lifetime();

    @Override
    public Integer call() throws Exception {
        if (port < 1 || port > 65535) {
            throw CommandFailure.usage("--port must be from 1 to 65535, was " + port);
        }
        if (!(jobsPerSecond >= 0 && jobsPerSecond <= 10_000)) {
            throw CommandFailure.usage("--jobs-per-second must be from 0 to 10000, was " + jobsPerSecond);
        }
        if (workers < 0 || workers > 16) {
            throw CommandFailure.usage("--workers must be from 0 to 16, was " + workers);
        }
        if (port > 65535 - workers) {
            throw CommandFailure.usage("--port must be at most " + (65535 - workers) + " with " + workers
                    + " workers: they serve their metrics on the ports after it, was " + port);
        }
        if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
            throw CommandFailure.usage("--lease must be at least 1s, was " + lease);
        }
        for (int p = port; p <= port + workers; p++) {
            checkPortFree(p);
        }
        PrintWriter out = spec.commandLine().getOut();
        Deque<AutoCloseable> started = new ArrayDeque<>();
        return lifetime.run("demo", () -> {
            // SIGINT stops the demo like SIGTERM, with a clean exit. A JVM that inherited SIGINT ignored (started
            // with & from a script, other than through bin/docket) cannot handle it: say so instead of staying deaf.
            Signal interrupt = new Signal("INT");
            SignalHandler previous = Signal.handle(interrupt, signal -> lifetime.stop());
            if (previous == SignalHandler.SIG_IGN) {
                say(out, "[demo] this process was started with SIGINT ignored, so Ctrl-C cannot stop it: use kill "
                        + ProcessHandle.current().pid() + " (SIGTERM), or start it with bin/docket");
            }
            try {
                say(out, "Starting embedded PostgreSQL 18 (the first run unpacks it) ...");
                DemoPostgres pg = DemoPostgres.start(Path.of(System.getProperty("java.io.tmpdir")), b -> b
                        .setPGStartupWait(Duration.ofSeconds(60))
                        .setServerConfig("fsync", "off")
                        .setServerConfig("max_connections", "200"), line -> say(out, line));
                started.push(pg);
                String jdbcUrl = pg.postgres().getJdbcUrl("postgres", "postgres");
                DemoHandlers demo = new DemoHandlers();
                Database db = Database.open(DatabaseUrl.parse(jdbcUrl), SCHEMA, 12, "docket-demo",
                        b -> demo.configure(b.meterRegistry(secondDatabase
                                ? QueueMetrics.registryFor(DatabaseOptions.DEFAULT_NAME) : QueueMetrics.registryFor())));
                started.push(db);
                Docket docket = db.docket();
                docket.migrate();
                Map<String, Docket> databases = new LinkedHashMap<>();
                databases.put(DatabaseOptions.DEFAULT_NAME, docket);
                Docket second = null;
                String secondUrl = null;
                if (secondDatabase) {
                    say(out, "Starting a second embedded PostgreSQL 18, database '" + SECOND + "' ...");
                    DemoPostgres pg2 = DemoPostgres.start(Path.of(System.getProperty("java.io.tmpdir")), b -> b
                            .setPGStartupWait(Duration.ofSeconds(60))
                            .setServerConfig("fsync", "off")
                            .setServerConfig("max_connections", "100"), line -> say(out, line));
                    started.push(pg2);
                    secondUrl = pg2.postgres().getJdbcUrl("postgres", "postgres");
                    Database db2 = Database.open(DatabaseUrl.parse(secondUrl), SCHEMA, 12, "docket-demo-" + SECOND,
                            b -> demo.configure(b.meterRegistry(QueueMetrics.registryFor(SECOND))));
                    started.push(db2);
                    second = db2.docket();
                    second.migrate();
                    databases.put(SECOND, second);
                }

                String token = TokenStore.generate();
                TokenStore tokens = new TokenStore();
                tokens.add(Role.ADMIN, token);
                DocketServer server = ServeCommand.startServer(databases, tokens, DocketServer.Config.defaults()
                        .withHost(HOST).withPort(port).withMaxBodyBytes(1024 * 1024));
                started.push(server);
                for (Docket d : databases.values()) {
                    started.push(MaintenanceLeader.start(d));
                }

                DemoLog log = new DemoLog(out);
                WorkerProcesses processes = new WorkerProcesses(List.of("--database-url", jdbcUrl, "--schema", SCHEMA,
                        "--queue", "default=16", "--queue", "email=4", "--queue", "reports=3", "--lease", Converters.format(lease),
                        "--shutdown-grace", "5s", "--no-maintenance"), workers, port + 1, lease, Duration.ofSeconds(20),
                        log);
                started.push(processes);
                processes.start();
                DemoTraffic traffic = new DemoTraffic(docket, jobsPerSecond, log, RandomGenerator.getDefault());
                started.push(traffic);
                traffic.start();
                if (second != null) {
                    Worker.Builder w = second.worker().queue("default", 8).queue("email", 2).queue("reports", 2)
                            .lease(lease).shutdownGrace(Duration.ofSeconds(5));
                    demo.register(w);
                    started.push(w.start());
                    DemoTraffic traffic2 = new DemoTraffic(second, jobsPerSecond / 5, log, RandomGenerator.getDefault());
                    started.push(traffic2);
                    traffic2.start();
                }

                banner(out, server, token, jdbcUrl, pg.runDirectory(), processes);
                if (secondUrl != null) {
                    say(out, "  Database '" + SECOND + "' " + secondUrl + "  (schema " + SCHEMA + "; an in-process worker)\n"
                            + "               the dashboard's Databases page; curl .../api/databases; jobs as " + SECOND
                            + "/ID\n");
                }
                while (!lifetime.awaitStop(Duration.ofSeconds(15))) {
                    status(out, docket, server, processes);
                }
                say(out, "[demo] stopping: producer, then workers (SIGTERM; they drain), server, PostgreSQL ...");
            } finally {
                closeAll(started, out);
                say(out, "[demo] stopped.");
                Signal.handle(interrupt, previous);
            }
        });
    }

    /** Stops a demo running in this JVM, as Ctrl-C would. */
    void stop() {
        lifetime.stop();
    }

    /** The dashboard's port, and the workers' metrics ports after it. */
    private void checkPortFree(int p) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(HOST, p));
        } catch (IOException e) {
            String needed = p == port ? "" : " (the dashboard's port " + port + " and the " + workers
                    + " after it are needed, for the workers' metrics)";
            throw CommandFailure.failed("port " + p + " on " + HOST + " is in use" + needed
                    + ": pass --port to pick another");
        }
    }

    private void banner(PrintWriter out, DocketServer server, String token, String jdbcUrl, Path runDirectory,
                        WorkerProcesses processes) {
        String pids = processes.pids().entrySet().stream()
                .map(e -> "worker-" + e.getKey() + " pid " + e.getValue()).collect(Collectors.joining(", "));
        List<String> lines = new ArrayList<>(List.of(
                "",
                "  Docket demo is running.",
                "",
                "  Dashboard    " + server.baseUrl() + "/",
                "  Login token  " + token + "   (admin; generated for this run)",
                "",
                "  API          curl -H 'Authorization: Bearer " + token + "' " + server.baseUrl() + "/api/stats",
                "  Metrics      curl -H 'Authorization: Bearer " + token + "' " + server.baseUrl() + "/metrics",
                "               the cluster's totals (docket_cluster_jobs_completed_total ...), backlog and workers;",
                "               each worker's own, without a token:" + (processes.pids().isEmpty() ? " none" : "")));
        processes.pids().keySet().forEach(n -> lines.add("               worker-" + n + "  " + processes.metricsUrl(n)
                + "  (and /health, /ready)"));
        lines.addAll(List.of(
                "  Database     " + jdbcUrl + "  (schema " + SCHEMA + ")",
                "               in " + runDirectory + ", stopped and deleted when the demo ends, however it ends",
                "               e.g. docket stats --database-url '" + jdbcUrl + "'",
                "  Workers      " + (pids.isEmpty() ? "none" : pids) + "  (separate JVMs, lease " + Converters.format(lease) + ")",
                "               kill -9 one: its jobs come back after the lease; a new worker starts "
                        + WorkerProcesses.RESTART_DELAY.toSeconds() + "s later, on the same metrics port.",
                "",
                "  Ctrl-C stops everything.",
                ""));
        say(out, String.join("\n", lines));
    }

    /** One line every 15 s; completed and failed per minute are the cluster counters' rates, as on the dashboard. */
    private void status(PrintWriter out, Docket docket, DocketServer server, WorkerProcesses processes) {
        try {
            List<QueueStats> stats = server.metrics().withClusterRates(docket.admin().stats());
            long scheduled = 0;
            long ready = 0;
            long running = 0;
            long completed = 0;
            long failed = 0;
            long dead = 0;
            for (QueueStats s : stats) {
                scheduled += s.scheduled();
                ready += s.ready();
                running += s.running();
                completed += s.completedLastMinute();
                failed += s.failedLastMinute();
                dead += s.dead();
            }
            say(out, String.format(Locale.ROOT, "[demo] %s  ready %d  running %d  scheduled %d  completed/min %d  "
                            + "failed/min %d  dead %d  workers %d/%d up", LocalTime.now().truncatedTo(ChronoUnit.SECONDS),
                    ready, running, scheduled, completed, failed, dead, processes.alive(), workers));
        } catch (RuntimeException e) {
            say(out, "[demo] statistics unavailable: " + ErrorMessages.oneLine(e.getMessage()));
        }
    }

    private static void closeAll(Deque<AutoCloseable> started, PrintWriter out) {
        while (!started.isEmpty()) {
            AutoCloseable c = started.pop();
            try {
                c.close();
            } catch (Exception e) {
                say(out, "[demo] while stopping: " + ErrorMessages.oneLine(String.valueOf(e.getMessage())));
            }
        }
    }

    private static void say(PrintWriter out, String text) {
        synchronized (out) {
            out.println(text);
            out.flush();
        }
    }
}
