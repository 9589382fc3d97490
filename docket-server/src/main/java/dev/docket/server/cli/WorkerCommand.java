package dev.docket.server.cli;

import dev.docket.Worker;
import dev.docket.server.metrics.QueueMetrics;
import dev.docket.server.metrics.WorkerEndpoint;
import dev.docket.server.spi.HandlerProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket worker}: a worker process for the demo kinds and for handlers from your jars. */
@Command(name = "worker", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs jobs until SIGTERM or Ctrl-C, then shuts down gracefully: it stops claiming, lets running "
                + "jobs finish within --shutdown-grace, and gives the rest back to the queue at once.",
                "",
                "Handlers: the built-in demo kinds (unless --no-demo-handlers), and every "
                        + "dev.docket.server.spi.HandlerProvider found with java.util.ServiceLoader on the class path "
                        + "or in --handlers jars. To run your own handlers, put a provider in a jar (listed in "
                        + "META-INF/services/dev.docket.server.spi.HandlerProvider) and start either",
                "  docket worker --handlers my-handlers.jar --queue default=16",
                "or",
                "  java -cp docket.jar:my-handlers.jar dev.docket.server.cli.DocketCommand worker --queue default=16",
                "A kind of yours replaces the demo kind of the same name."},
        footerHeading = "%nExample:%n",
        footer = {"  docket worker --database-url postgres://app:secret@db/app \\",
                "      --queue default=16 --queue email=4 --lease 1m"})
final class WorkerCommand extends DatabaseCommand {

    @Option(names = "--queue", paramLabel = "NAME[=CONCURRENCY]", order = 1, converter = Converters.QueueConverter.class,
            description = "A queue to serve and how many of its jobs run at once (default concurrency "
                    + Converters.QueueSpec.DEFAULT_CONCURRENCY + "); repeat for more queues. Default: default=10.")
    List<Converters.QueueSpec> queues = new ArrayList<>();

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "30s", order = 2,
            converter = Converters.DurationConverter.class,
            description = "How long a claim holds a job without a heartbeat: a killed worker's jobs run again this "
                    + "long after its last heartbeat (default: ${DEFAULT-VALUE}).")
    Duration lease;

    @Option(names = "--shutdown-grace", paramLabel = "DURATION", defaultValue = "10s", order = 3,
            converter = Converters.DurationConverter.class,
            description = "How long running jobs may finish at shutdown before they are interrupted and given back "
                    + "(default: ${DEFAULT-VALUE}). At SIGTERM the process waits for this grace, then up to 60 s more "
                    + "while the interrupted jobs are given back and the last outcomes written.")
    Duration shutdownGrace;

    @Option(names = "--handlers", paramLabel = "JAR", order = 4,
            description = "A jar (or class directory) with HandlerProvider implementations; repeatable.")
    List<Path> handlerJars = new ArrayList<>();

    @Option(names = "--no-demo-handlers", negatable = false, order = 5,
            description = "Do not run the built-in demo kinds.")
    boolean noDemoHandlers;

    @Option(names = "--no-maintenance", order = 6,
            description = "Do not take part in the election of the maintenance leader (some process must).")
    boolean noMaintenance;

    @Option(names = "--worker-id", paramLabel = "ID", order = 7,
            description = "This worker's id in locked_by and error entries (default: host/pid/random).")
    String workerId;

    @Option(names = "--pool-size", paramLabel = "N", order = 8,
            description = "Database connections (default: queues + 7: claims, heartbeats, outcomes, the listener, "
                    + "and a few for handlers).")
    Integer poolSize;

    @Option(names = "--metrics-address", paramLabel = "HOST:PORT", order = 9,
            converter = Converters.ListenAddressConverter.class,
            description = "Serve this worker's /metrics (Prometheus: its job counters and histograms, its JVM), /health "
                    + "and /ready on HOST:PORT, e.g. 127.0.0.1:9400, or 0.0.0.0:9400 for a scraper on another host (no "
                    + "token: it shows no payload). Port 0 picks a free one. Default: off. The cluster's totals are on "
                    + "the server's /metrics.")
    Converters.ListenAddress metricsAddress;

    /**
     * Set by {@code docket demo}: exit at once when standard input ends, which is when the demo, the only
     * holder of the pipe's other end, is gone however it ended (see {@link #exitWhenStdinEnds()}).
     */
    @Option(names = "--exit-with-parent", hidden = true)
    boolean exitWithParent;

    /** What a stopping worker may take beyond its grace: interrupting, releasing and writing the last outcomes. */
    static final Duration CLEANUP_AFTER_GRACE = Duration.ofSeconds(60);

    final Lifetime lifetime = new Lifetime();

    @Override
    public Integer call() throws Exception {
        DocketCommand.verboseLogging();
        List<Converters.QueueSpec> served = queues.isEmpty()
                ? List.of(new Converters.QueueSpec("default", Converters.QueueSpec.DEFAULT_CONCURRENCY)) : queues;
        long distinct = served.stream().map(Converters.QueueSpec::name).distinct().count();
        if (distinct < served.size()) {
            throw CommandFailure.usage("each --queue may be given once");
        }
        int pool = poolSize != null ? poolSize : served.size() + 7;
        if (pool < served.size() + 3 || pool > 1000) {
            throw CommandFailure.usage("--pool-size must be from " + (served.size() + 3) + " (queues + 3) to 1000, was " + pool);
        }
        List<HandlerProvider> providers = loadProviders();
        DemoHandlers demo = noDemoHandlers ? null : new DemoHandlers();
        if (demo == null && providers.isEmpty()) {
            throw CommandFailure.usage("no handlers: --no-demo-handlers was given and no HandlerProvider was found "
                    + "(add one with --handlers JAR)");
        }
        if (exitWithParent) {
            exitWhenStdinEnds();
        }
        PrintWriter out = spec.commandLine().getOut();
        // At SIGTERM (a pod scaled down) the JVM waits for the handlers' whole grace, then for the outcomes.
        lifetime.allowCleanup(shutdownGrace.plus(CLEANUP_AFTER_GRACE));
        return lifetime.run("worker", () -> {
            // The endpoint first: an address in use ends the command with its one line, before any job is claimed.
            try (WorkerEndpoint endpoint = metricsAddress == null ? null : startEndpoint();
                 Database db = database.open(pool, builder -> {
                     if (endpoint != null) {
                         // The server reads the database gauges once for the cluster; each worker only its own meters.
                         builder.meterRegistry(endpoint.registry()).databaseGauges(false);
                     }
                     if (demo != null) {
                         demo.configure(builder);
                     }
                     providers.forEach(p -> p.configure(builder));
                 })) {
                db.requireCurrentSchema();
                Worker.Builder builder = db.docket().worker()
                        .lease(lease)
                        .shutdownGrace(shutdownGrace)
                        .maintenance(!noMaintenance);
                if (workerId != null) {
                    builder.workerId(workerId);
                }
                served.forEach(q -> builder.queue(q.name(), q.concurrency()));
                providers.forEach(p -> p.register(builder));
                List<String> replaced = demo == null ? List.of() : DemoHandlers.registerUnclaimed(builder);
                try (Worker worker = builder.start()) {
                    out.printf("docket worker %s: queues %s, lease %s, handlers from %s%s. SIGTERM or Ctrl-C stops it "
                                    + "gracefully.%n", worker.workerId(),
                            served.stream().map(Object::toString).collect(Collectors.joining(", ")), Converters.format(lease),
                            describe(providers, demo != null),
                            replaced.isEmpty() ? "" : " (yours replace the demo's " + String.join(", ", replaced) + ")");
                    if (endpoint != null) {
                        endpoint.serve(worker);
                        out.printf("docket worker %s: metrics at %s/metrics, health at %s/health and %s/ready%n",
                                worker.workerId(), endpoint.baseUrl(), endpoint.baseUrl(), endpoint.baseUrl());
                    }
                    out.flush();
                    lifetime.awaitStop();
                    if (endpoint != null) {
                        endpoint.stopping();
                    }
                    out.printf("docket worker %s: stopping (grace %s) ...%n", worker.workerId(),
                            Converters.format(shutdownGrace));
                    out.flush();
                }
                out.println("docket worker stopped.");
                out.flush();
            }
        });
    }

    /**
     * Halts this JVM as soon as standard input reaches its end. The demo starts its workers with stdin a
     * pipe whose write end only the demo's JVM holds (the JDK closes every other descriptor in a child),
     * so the kernel closes it the moment the demo ends, SIGKILL included, and the read returns at once.
     * Watching the parent's pid instead would poll (the JDK checks a process that is not a child every
     * 0.3 to 5 s) and would miss a parent that died before the watch began, its pid then naming init.
     * No graceful stop: the demo's PostgreSQL goes with the demo, so there is nothing to give jobs back
     * to, and a drain would only wait for connections to a database that is gone.
     */
    private static void exitWhenStdinEnds() {
        Thread.ofPlatform().daemon().name("docket-worker-parent-watch").start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // The demo writes nothing; whatever arrives is ignored.
                }
            } catch (IOException e) {
                // A broken pipe ends the same way.
            }
            Runtime.getRuntime().halt(1);
        });
    }

    private WorkerEndpoint startEndpoint() {
        String at = metricsAddress.toString();
        if (metricsAddress.port() != 0) {
            // Javalin logs a failed bind at ERROR with a stack trace before it throws: found here first, in one line.
            try (ServerSocket probe = new ServerSocket()) {
                probe.bind(new InetSocketAddress(metricsAddress.host(), metricsAddress.port()));
            } catch (IOException | IllegalArgumentException e) {
                throw CommandFailure.failed("cannot serve metrics on " + at + ": " + reason(e));
            }
        }
        try {
            return WorkerEndpoint.start(metricsAddress.host(), metricsAddress.port(), QueueMetrics.registryFor());
        } catch (RuntimeException e) {
            throw CommandFailure.failed("cannot serve metrics on " + at + ": " + ErrorMessages.oneLine(e.getMessage()));
        }
    }

    private static String reason(Exception e) {
        return e instanceof IOException io ? ErrorMessages.io(io) : ErrorMessages.oneLine(e.getMessage());
    }

    /** Stops a worker started in this JVM, as SIGTERM would. */
    void stop() {
        lifetime.stop();
    }

    private List<HandlerProvider> loadProviders() throws MalformedURLException {
        ClassLoader loader = WorkerCommand.class.getClassLoader();
        if (!handlerJars.isEmpty()) {
            List<URL> urls = new ArrayList<>();
            for (Path jar : handlerJars) {
                if (!Files.isReadable(jar)) {
                    throw CommandFailure.usage("--handlers " + jar + ": no such readable file or directory");
                }
                urls.add(jar.toUri().toURL());
            }
            loader = new URLClassLoader("docket-handlers", urls.toArray(URL[]::new), loader);
        }
        List<HandlerProvider> providers = new ArrayList<>();
        try {
            for (HandlerProvider p : ServiceLoader.load(HandlerProvider.class, loader)) {
                if (!(p instanceof DemoHandlers)) {
                    providers.add(p);
                }
            }
        } catch (ServiceConfigurationError e) {
            throw CommandFailure.failed("cannot load a handler provider: " + ErrorMessages.oneLine(e.getMessage()));
        }
        return providers;
    }

    private static String describe(List<HandlerProvider> providers, boolean demo) {
        List<String> names = new ArrayList<>();
        if (demo) {
            names.add("the demo kinds");
        }
        providers.forEach(p -> names.add(p.getClass().getName()));
        return String.join(", ", names);
    }
}
