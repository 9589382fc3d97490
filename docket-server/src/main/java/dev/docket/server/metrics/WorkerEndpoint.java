package dev.docket.server.metrics;

import dev.docket.Worker;
import dev.docket.WorkerHealth;
import dev.docket.server.api.ApiErrors;
import dev.docket.server.api.JettyErrors;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A worker process's own HTTP endpoint ({@code docket worker --metrics-address}): {@code /metrics}, the
 * worker's registry in Prometheus's text format (this process's job counters, histograms and slots,
 * and its JVM's meters; never the gauges read from the database, which the server reports once for
 * the cluster), {@code /health} and {@code /ready}.
 *
 * <ul>
 *   <li>{@code /health}: 200 {@code {"status": "ok", ...}} while the worker is healthy
 *       ({@link WorkerHealth#healthy()}: no service failing 3 rounds in a row, none stalled), else 503
 *       {@code "unhealthy"} (or {@code "starting"} before the worker runs), with the worker's id, whether
 *       it leads, listens, what it holds, and its failing and stalled services by name;</li>
 *   <li>{@code /ready}: 200 {@code {"status": "ready"}} while the worker runs, is healthy and has not
 *       begun to shut down; else 503 {@code {"error": "not_ready", "message": why}}.</li>
 * </ul>
 *
 * Like any exporter it needs no token: it shows queue and kind names, the worker's id and its services'
 * names, never a payload nor an error text (those are in the worker's log). Bind it to an address only
 * your scraper reaches. Only GET is served; anything else is a JSON error (404, 405, 400, 414, 431) as
 * the server gives them. A small thread pool serves it.
 */
public final class WorkerEndpoint implements AutoCloseable {

    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;
    private final JvmMetrics jvmMetrics;
    private final Javalin app;
    private final String host;
    private volatile Worker worker;
    private volatile boolean stopping;

    private WorkerEndpoint(String host, PrometheusMeterRegistry registry) {
        this.host = host;
        this.registry = registry;
        this.jvmMetrics = new JvmMetrics(registry);
        this.app = Javalin.create(c -> {
            c.showJavalinBanner = false;
            c.jetty.threadPool = threadPool();
            JettyErrors jettyErrors = new JettyErrors();
            c.jetty.modifyServer(server -> server.setErrorHandler(jettyErrors));
            c.jetty.modifyServletContextHandler(handler -> handler.setErrorHandler(jettyErrors));
            c.http.prefer405over404 = true;
            c.http.defaultContentType = "application/json";
            c.http.disableCompression();
        });
        ApiErrors.register(app);
        app.after(ctx -> {
            ctx.header("Cache-Control", "no-store");
            ctx.header("X-Content-Type-Options", "nosniff");
        });
        app.get("/metrics", ctx -> ctx.contentType(PROMETHEUS_TEXT).result(registry.scrape()));
        app.get("/health", this::health);
        app.get("/ready", this::ready);
    }

    /**
     * Small, since it serves a scraper and probes: 16 threads at most, of which Jetty leases up to 8 for
     * its acceptors and selectors on a large machine (Javalin's default allows 250).
     */
    private static QueuedThreadPool threadPool() {
        QueuedThreadPool pool = new QueuedThreadPool(16, 2);
        pool.setName("docket-worker-http");
        return pool;
    }

    /**
     * Listens on {@code host}:{@code port} (0 picks a free port) and serves {@code registry}, with the JVM's
     * meters bound to it. {@code /health} and {@code /ready} answer 503 until {@link #serve} is called.
     *
     * @throws RuntimeException if the address cannot be bound (in use, not a local address)
     */
    public static WorkerEndpoint start(String host, int port, PrometheusMeterRegistry registry) {
        WorkerEndpoint endpoint = new WorkerEndpoint(host, registry);
        try {
            endpoint.app.start(host, port);
        } catch (RuntimeException e) {
            endpoint.close();
            throw e;
        }
        return endpoint;
    }

    /** From now on {@code /health} and {@code /ready} report {@code worker}'s health. */
    public void serve(Worker worker) {
        this.worker = worker;
    }

    /** The worker's graceful shutdown began: {@code /ready} answers 503 from now on; {@code /metrics} stays. */
    public void stopping() {
        stopping = true;
    }

    /** The registry it serves: the one to give the worker's {@code Docket.Builder.meterRegistry}. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The port it listens on (useful with port 0). */
    public int port() {
        return app.port();
    }

    /** {@code http://HOST:PORT}, an IPv6 host in brackets. */
    public String baseUrl() {
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
    }

    private void health(Context ctx) {
        Worker w = worker;
        Map<String, Object> body = new LinkedHashMap<>();
        if (w == null) {
            body.put("status", "starting");
            ctx.status(503).json(body);
            return;
        }
        WorkerHealth h = w.health();
        body.put("status", h.healthy() ? "ok" : "unhealthy");
        body.put("workerId", h.workerId());
        body.put("leader", h.leader());
        body.put("listening", h.listening());
        body.put("inFlight", h.inFlight());
        body.put("failingServices", h.failingServices());
        body.put("stalledServices", h.stalledServices());
        ctx.status(h.healthy() ? 200 : 503).json(body);
    }

    private void ready(Context ctx) {
        Worker w = worker;
        if (w == null) {
            ApiErrors.write(ctx, 503, "not_ready", "the worker is starting");
        } else if (stopping) {
            ApiErrors.write(ctx, 503, "not_ready", "the worker is shutting down");
        } else if (!w.health().healthy()) {
            ApiErrors.write(ctx, 503, "not_ready", "the worker is unhealthy: see /health");
        } else {
            ctx.json(Map.of("status", "ready"));
        }
    }

    @Override
    public void close() {
        app.stop();
        jvmMetrics.close();
        registry.close();
    }
}
