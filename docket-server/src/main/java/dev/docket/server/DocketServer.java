package dev.docket.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.DocketRouter;
import dev.docket.internal.rules.TextRules;
import dev.docket.server.api.Access;
import dev.docket.server.api.ApiErrors;
import dev.docket.server.api.Authentication;
import dev.docket.server.api.DatabasesApi;
import dev.docket.server.api.DlqApi;
import dev.docket.server.api.DlqRepairApi;
import dev.docket.server.api.DoctorApi;
import dev.docket.server.api.DotSegmentFilter;
import dev.docket.server.api.JettyErrors;
import dev.docket.server.api.JobsApi;
import dev.docket.server.api.JsonBodies;
import dev.docket.server.api.QueuesApi;
import dev.docket.server.api.RateLimitsApi;
import dev.docket.server.api.SchedulesApi;
import dev.docket.server.api.RequestBodyFilter;
import dev.docket.server.api.SecurityHeaders;
import dev.docket.server.api.SessionsApi;
import dev.docket.server.api.SlosApi;
import dev.docket.server.api.StatusApi;
import dev.docket.server.api.Utf8UrlFilter;
import dev.docket.server.api.WorkflowsApi;
import dev.docket.server.auth.Sessions;
import dev.docket.server.auth.TokenStore;
import dev.docket.server.dashboard.Dashboard;
import dev.docket.server.metrics.QueueMetrics;
import dev.docket.server.metrics.SloGauges;
import io.javalin.Javalin;
import io.javalin.json.JavalinJackson;
import jakarta.servlet.DispatcherType;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.servlet.FilterHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of Docket: the REST API under {@code /api}, the dashboard, {@code /metrics},
 * {@code /health} and {@code /ready}. This class wires the parts and owns the lifecycle; each concern
 * lives in its own class: {@link Authentication} (every route declares its {@link Access}; a bearer
 * token or a dashboard session with its CSRF token), {@link SessionsApi} (login), {@link SecurityHeaders},
 * {@link ApiErrors} (errors are always JSON {@code {error, message}} with a documented code; nothing
 * a client sends produces a stack trace or a 5xx), and one class of routes per resource.
 */
public final class DocketServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DocketServer.class);
    private static final Duration DEFAULT_BODY_READ_TIMEOUT = Duration.ofSeconds(5);

    /** How to run the server; {@link #defaults()} documents each default. */
    public record Config(String host, int port, long maxBodyBytes, Duration sessionTtl, Duration metricsInterval,
                         Duration bodyReadTimeout) {

        public Config {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
            }
            if (maxBodyBytes < 1024) {
                throw new IllegalArgumentException("maxBodyBytes must be at least 1024, was " + maxBodyBytes);
            }
            if (bodyReadTimeout == null || bodyReadTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("bodyReadTimeout must be at least 1ms, was " + bodyReadTimeout);
            }
        }

        /** A configuration with the default body read timeout of 5 s (the constructor before that setting). */
        public Config(String host, int port, long maxBodyBytes, Duration sessionTtl, Duration metricsInterval) {
            this(host, port, maxBodyBytes, sessionTtl, metricsInterval, DEFAULT_BODY_READ_TIMEOUT);
        }

        /**
         * 127.0.0.1:8080, request bodies up to 256 KiB (larger get 413; {@code docket serve} raises it to
         * 1 MiB with {@code --max-body-bytes}, and a payload is further limited by
         * {@code Docket.Builder.maxPayloadBytes}, 256 KiB by default), sessions of 12 h, metrics
         * refreshed every 5 s, and a request body that stops arriving for 5 s refused with 408 (see
         * {@link #withBodyReadTimeout}).
         */
        public static Config defaults() {
            return new Config("127.0.0.1", 8080, 256 * 1024, Duration.ofHours(12), Duration.ofSeconds(5),
                    DEFAULT_BODY_READ_TIMEOUT);
        }

        /** A copy listening on {@code host}, an address or a host name. */
        public Config withHost(String host) {
            return new Config(host, port, maxBodyBytes, sessionTtl, metricsInterval, bodyReadTimeout);
        }

        /**
         * A copy listening on {@code port}; 0 picks a free one.
         *
         * @throws IllegalArgumentException if the port is outside 0..65535
         */
        public Config withPort(int port) {
            return new Config(host, port, maxBodyBytes, sessionTtl, metricsInterval, bodyReadTimeout);
        }

        /**
         * A copy accepting request bodies up to {@code max} bytes; larger get 413.
         *
         * @throws IllegalArgumentException if {@code max} is below 1024
         */
        public Config withMaxBodyBytes(long max) {
            return new Config(host, port, max, sessionTtl, metricsInterval, bodyReadTimeout);
        }

        /**
         * A copy that refuses a request body with 408 when none of it arrives for {@code timeout}
         * (default 5 s): a client that announces more than it sends (a {@code Content-Length} larger
         * than the body, an unfinished chunked body) holds a server thread this long at most, not for
         * the 30 s connection idle timeout. A body over {@code maxBodyBytes} by its {@code Content-Length}
         * is refused with 413 at once, before any of it is read.
         *
         * @throws IllegalArgumentException if {@code timeout} is null or under 1 ms
         */
        public Config withBodyReadTimeout(Duration timeout) {
            return new Config(host, port, maxBodyBytes, sessionTtl, metricsInterval, timeout);
        }
    }

    /**
     * A route the server answers, as registered with Javalin.
     *
     * @param method the HTTP method
     * @param path   the path in Javalin's syntax ({@code /api/jobs/{id}})
     * @param access who may call it
     */
    public record Route(String method, String path, Access access) {
    }

    private final List<Route> routes = new CopyOnWriteArrayList<>();
    private final QueueMetrics metrics;
    /** The other databases' metrics, merged into {@link #metrics}'s scrape; empty with one database. */
    private final List<QueueMetrics> otherMetrics = new ArrayList<>();
    private final Javalin app;
    private final Config config;

    private DocketServer(Map<String, Docket> databases, TokenStore tokens, Config config) {
        this.config = config;
        Docket docket = databases.values().iterator().next();
        this.metrics = new QueueMetrics(docket, config.metricsInterval());
        Map<String, QueueMetrics> metricsByDatabase = new LinkedHashMap<>();
        databases.forEach((name, d) -> {
            if (d == docket) {
                metricsByDatabase.put(name, metrics);
            } else {
                QueueMetrics m = new QueueMetrics(d, config.metricsInterval(), false);
                otherMetrics.add(m);
                metrics.include(m);
                metricsByDatabase.put(name, m);
            }
        });
        ObjectMapper mapper = JsonBodies.mapper();
        JsonBodies bodies = new JsonBodies(mapper, config.maxBodyBytes());
        Sessions sessions = new Sessions(config.sessionTtl());
        this.app = Javalin.create(c -> {
            c.showJavalinBanner = false;
            // Requests Jetty rejects before routing (an ambiguous URI, say) get JSON errors too.
            JettyErrors jettyErrors = new JettyErrors();
            c.jetty.modifyServer(server -> server.setErrorHandler(jettyErrors));
            // Dispatch a request when its headers are in, not when its body starts: a Content-Length over the
            // limit is then refused from the header at once (RequestBodyFilter), not after the idle timeout.
            c.jetty.modifyHttpConfiguration(http -> http.setDelayDispatchUntilContent(false));
            c.jetty.modifyServletContextHandler(handler -> {
                handler.setErrorHandler(jettyErrors);
                handler.addFilter(new FilterHolder(new DotSegmentFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
                handler.addFilter(new FilterHolder(new Utf8UrlFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
                handler.addFilter(new FilterHolder(new RequestBodyFilter(config.maxBodyBytes(), config.bodyReadTimeout())),
                        "/*", EnumSet.of(DispatcherType.REQUEST));
            });
            c.events(events -> events.handlerAdded(h -> {
                if (h.getHttpMethod().isHttpMethod()) {
                    Access access = h.getRoles().stream().filter(Access.class::isInstance).map(Access.class::cast)
                            .findFirst().orElse(null);
                    routes.add(new Route(h.getHttpMethod().name(), h.getPath(), access));
                }
            }));
            c.jsonMapper(new JavalinJackson(mapper, false));
            c.http.maxRequestSize = config.maxBodyBytes();
            c.http.defaultContentType = "application/json";
            // A known path with another method is a 405, not a 404.
            c.http.prefer405over404 = true;
            // Javalin refuses to start when the directory is missing: a build without the dashboard
            // still serves the API.
            if (DocketServer.class.getResource("/dashboard/assets") != null) {
                c.staticFiles.add(files -> {
                    files.hostedPath = "/assets";
                    files.directory = "/dashboard/assets";
                    files.location = io.javalin.http.staticfiles.Location.CLASSPATH;
                    files.roles = Set.of(Access.PUBLIC);
                    // Jetty may commit a static file before after-handlers run: its headers are set here.
                    Map<String, String> headers = new LinkedHashMap<>(SecurityHeaders.HEADERS);
                    headers.put("Cache-Control", "no-cache");
                    files.headers = headers;
                    Dashboard.mimeTypes(files.mimeTypes);
                });
            }
        });
        app.beforeMatched(new Authentication(tokens, sessions)::authenticate);
        app.after(SecurityHeaders::apply);
        ApiErrors.register(app);
        new StatusApi(docket, metrics).register(app);
        new SessionsApi(tokens, sessions, bodies).register(app);
        new JobsApi(docket, bodies).register(app);
        new DlqApi(docket.admin(), bodies).register(app);
        new DlqRepairApi(docket.admin(), bodies).register(app);
        new QueuesApi(docket.admin(), bodies).register(app);
        new RateLimitsApi(docket.admin(), bodies).register(app);
        new SchedulesApi(docket.admin(), bodies).register(app);
        new DoctorApi(docket.admin()).register(app);
        new SlosApi(docket.admin(), bodies).register(app);
        new WorkflowsApi(docket, bodies).register(app);
        SloGauges slos = new SloGauges(docket, metrics.registry());
        metrics.onRefresh(stats -> slos.refresh());
        new Dashboard(metrics).register(app);
        if (databases.size() > 1) {
            new DatabasesApi(databases, metricsByDatabase).register(app);
        }
    }

    /**
     * Starts the server on {@code config}'s address. Every request but health, readiness, login and
     * static assets needs a token, so at least one must be configured (the CLI generates an admin
     * token on a loopback address, and refuses any other address without configured tokens).
     *
     * @throws IllegalStateException if no token is configured
     */
    public static DocketServer start(Docket docket, TokenStore tokens, Config config) {
        return start(Map.of("default", docket), tokens, config);
    }

    /**
     * Starts the server over several databases, each named (as in {@code database/id}): the first is
     * the default, which the whole API, the dashboard and the unlabelled routes serve exactly as a
     * server of one database does; {@code /api/databases} shows every database (its queues, workers
     * and dead jobs), {@code /api/databases/{database}/jobs/{id}} finds a job in any, and
     * {@code /api/databases/doctor} runs the doctor per database and across them. With more than one,
     * give each Docket a registry of {@code QueueMetrics.registryFor(name)}: every metric then carries
     * its {@code database} label, and {@code /metrics} serves all of them in one scrape.
     *
     * @throws IllegalArgumentException for no database, or a name {@code DocketRouter.DATABASE_NAME} refuses
     * @throws IllegalStateException    if no token is configured
     */
    public static DocketServer start(Map<String, Docket> databases, TokenStore tokens, Config config) {
        if (databases.isEmpty()) {
            throw new IllegalArgumentException("docket: a server needs at least one database");
        }
        databases.keySet().forEach(name -> {
            if (!DocketRouter.DATABASE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("database name must be 1 to 63 letters, digits, '_' or '-', was "
                        + TextRules.describe(name));
            }
        });
        if (tokens.isEmpty()) {
            throw new IllegalStateException("docket: no API tokens configured; set DOCKET_TOKENS (e.g. admin:TOKEN) "
                    + "or --tokens-file");
        }
        DocketServer server = new DocketServer(new LinkedHashMap<>(databases), tokens, config);
        try {
            server.app.start(config.host(), config.port());
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        log.info("docket: serving on http://{}:{}/", config.host(), server.port());
        return server;
    }

    /** Whether {@code host} is a loopback address (127.0.0.0/8, ::1, localhost). */
    public static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The port the server listens on (useful with port 0). */
    public int port() {
        return app.port();
    }

    /** {@code http://HOST:PORT}, with an IPv6 host in brackets. */
    public String baseUrl() {
        return "http://" + (config.host().contains(":") ? "[" + config.host() + "]" : config.host()) + ":" + port();
    }

    /** Every route registered, in registration order (the OpenAPI document describes the API ones). */
    public List<Route> routes() {
        return List.copyOf(routes);
    }

    /** The metrics behind {@code /metrics} and the dashboard's history. */
    public QueueMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        app.stop();
        otherMetrics.forEach(QueueMetrics::close);
        metrics.close();
    }
}
