package dev.docket.server;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.docket.Docket;
import dev.docket.server.api.Access;
import dev.docket.server.api.ApiException;
import dev.docket.server.api.Bodies;
import dev.docket.server.api.Caller;
import dev.docket.server.api.DlqApi;
import dev.docket.server.api.DotSegmentFilter;
import dev.docket.server.api.JettyErrors;
import dev.docket.server.api.JobsApi;
import dev.docket.server.api.QueuesApi;
import dev.docket.server.api.Views;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.Sessions;
import dev.docket.server.auth.TokenStore;
import dev.docket.server.dashboard.Dashboard;
import dev.docket.server.metrics.QueueMetrics;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.json.JavalinJackson;
import io.javalin.security.RouteRole;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.servlet.FilterHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of Docket: the REST API under {@code /api}, the dashboard, {@code /metrics},
 * {@code /health} and {@code /ready}. Every route declares its {@link Access}; one filter
 * authenticates the caller (a bearer token, or a dashboard session cookie plus its CSRF token for
 * anything that changes state) before a matched route runs. Errors are always JSON
 * {@code {error, message}}; nothing a client sends produces a stack trace.
 */
public final class DocketServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DocketServer.class);

    /** How to run the server; {@link #defaults()} documents each default. */
    public record Config(String host, int port, long maxBodyBytes, Duration sessionTtl, Duration metricsInterval) {

        public Config {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, was " + port);
            }
            if (maxBodyBytes < 1024) {
                throw new IllegalArgumentException("maxBodyBytes must be at least 1024, was " + maxBodyBytes);
            }
        }

        /** 127.0.0.1:8080, bodies up to 256 KiB, sessions of 12 h, metrics refreshed every 5 s. */
        public static Config defaults() {
            return new Config("127.0.0.1", 8080, 256 * 1024, Duration.ofHours(12), Duration.ofSeconds(5));
        }

        public Config withHost(String host) {
            return new Config(host, port, maxBodyBytes, sessionTtl, metricsInterval);
        }

        public Config withPort(int port) {
            return new Config(host, port, maxBodyBytes, sessionTtl, metricsInterval);
        }

        public Config withMaxBodyBytes(long max) {
            return new Config(host, port, max, sessionTtl, metricsInterval);
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

    private final Docket docket;
    private final TokenStore tokens;
    private final List<Route> routes = new CopyOnWriteArrayList<>();
    private final Sessions sessions;
    private final QueueMetrics metrics;
    private final Javalin app;
    private final Config config;

    private DocketServer(Docket docket, TokenStore tokens, Config config) {
        this.docket = docket;
        this.tokens = tokens;
        this.config = config;
        this.sessions = new Sessions(config.sessionTtl());
        this.metrics = new QueueMetrics(docket.admin(), config.metricsInterval());
        // Exact decimals: a payload's numbers reach the database as sent (1e400 stays 1E+400, not "Infinity").
        ObjectMapper mapper = new ObjectMapper().registerModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        Bodies bodies = new Bodies(mapper, config.maxBodyBytes());
        this.app = Javalin.create(c -> {
            c.showJavalinBanner = false;
            // Requests Jetty rejects before routing (an ambiguous URI, say) get JSON errors too.
            JettyErrors jettyErrors = new JettyErrors(SECURITY_HEADERS);
            c.jetty.modifyServer(server -> server.setErrorHandler(jettyErrors));
            c.jetty.modifyServletContextHandler(handler -> {
                handler.setErrorHandler(jettyErrors);
                handler.addFilter(new FilterHolder(new DotSegmentFilter(SECURITY_HEADERS)), "/*",
                        EnumSet.of(DispatcherType.REQUEST));
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
            // Javalin refuses to start when the directory is missing: a build without the dashboard
            // still serves the API.
            if (DocketServer.class.getResource("/dashboard/assets") != null) {
                c.staticFiles.add(files -> {
                    files.hostedPath = "/assets";
                    files.directory = "/dashboard/assets";
                    files.location = io.javalin.http.staticfiles.Location.CLASSPATH;
                    files.roles = Set.of(Access.PUBLIC);
                    // Jetty may commit a static file before after-handlers run: its headers are set here.
                    Map<String, String> headers = new LinkedHashMap<>(SECURITY_HEADERS);
                    headers.put("Cache-Control", "no-cache");
                    files.headers = headers;
                    Dashboard.mimeTypes(files.mimeTypes);
                });
            }
        });
        app.beforeMatched(this::authenticate);
        app.after(DocketServer::securityHeaders);
        app.exception(ApiException.class, (e, ctx) -> error(ctx, e.status(), e.code(), e.getMessage()));
        app.exception(HttpResponseException.class, (e, ctx) ->
                error(ctx, e.getStatus(), e.getStatus() == 413 ? "payload_too_large" : "http_" + e.getStatus(),
                        e.getMessage()));
        app.exception(IllegalArgumentException.class, (e, ctx) -> error(ctx, 400, "bad_request", e.getMessage()));
        app.exception(Exception.class, (e, ctx) -> {
            log.warn("docket: {} {} failed: {}", ctx.method(), ctx.path(), e.toString());
            error(ctx, 503, "unavailable", "the request could not be served (database unreachable?); try again");
        });
        app.error(404, ctx -> {
            if (ctx.result() == null || ctx.result().isEmpty()) {
                error(ctx, 404, "not_found", "no route " + ctx.method() + " " + ctx.path());
            }
        });
        app.error(405, ctx -> error(ctx, 405, "method_not_allowed", ctx.method() + " is not allowed on " + ctx.path()));
        app.get("/health", ctx -> ctx.json(Map.of("status", "ok")), Access.PUBLIC);
        app.get("/ready", this::ready, Access.PUBLIC);
        app.get("/metrics", ctx -> ctx.contentType(metrics.contentType()).result(metrics.scrape()), Access.READ);
        app.get("/api/openapi.json", DocketServer::openApi, Access.PUBLIC);
        app.get("/api/stats", this::stats, Access.READ);
        app.post("/api/session", this::login, Access.PUBLIC);
        app.delete("/api/session", this::logout, Access.READ);
        app.get("/api/session", this::whoami, Access.READ);
        new JobsApi(docket, bodies).register(app);
        new DlqApi(docket.admin(), bodies).register(app);
        new QueuesApi(docket.admin(), bodies).register(app);
        new Dashboard(metrics).register(app);
    }

    /**
     * Starts the server on {@code config}'s address. Every request but health, readiness, login and
     * static assets needs a token, so at least one must be configured (the CLI generates an admin
     * token on a loopback address, and refuses any other address without configured tokens).
     *
     * @throws IllegalStateException if no token is configured
     */
    public static DocketServer start(Docket docket, TokenStore tokens, Config config) {
        if (tokens.isEmpty()) {
            throw new IllegalStateException("docket: no API tokens configured; set DOCKET_TOKENS (e.g. admin:TOKEN) "
                    + "or --tokens-file");
        }
        DocketServer server = new DocketServer(docket, tokens, config);
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

    public String baseUrl() {
        return "http://" + (config.host().contains(":") ? "[" + config.host() + "]" : config.host()) + ":" + port();
    }

    /** Every route registered, in registration order (the OpenAPI document describes the API ones). */
    public List<Route> routes() {
        return List.copyOf(routes);
    }

    public QueueMetrics metrics() {
        return metrics;
    }

    private void authenticate(Context ctx) {
        Set<RouteRole> roles = ctx.routeRoles();
        if (roles.contains(Access.PUBLIC)) {
            return;
        }
        Caller caller = bearer(ctx).or(() -> session(ctx)).orElseThrow(() ->
                new ApiException(401, "unauthorized", "a bearer token (Authorization: Bearer ...) or a dashboard "
                        + "session is required"));
        for (RouteRole r : roles) {
            if (r instanceof Access access && !access.allows(caller.role())) {
                throw new ApiException(403, "forbidden", "the " + caller.role().label() + " role may not do this");
            }
        }
        caller.attach(ctx);
    }

    private Optional<Caller> bearer(Context ctx) {
        String header = ctx.header("Authorization");
        if (header == null) {
            return Optional.empty();
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw new ApiException(401, "unauthorized", "the Authorization header must be 'Bearer TOKEN'");
        }
        Role role = tokens.roleOf(header.substring(7).trim())
                .orElseThrow(() -> new ApiException(401, "unauthorized", "unknown token"));
        return Optional.of(new Caller(role, false));
    }

    private Optional<Caller> session(Context ctx) {
        Optional<Sessions.Session> session = sessions.find(ctx.cookie(Sessions.COOKIE));
        if (session.isEmpty()) {
            return Optional.empty();
        }
        boolean changesState = ctx.method() != HandlerType.GET && ctx.method() != HandlerType.HEAD;
        if (changesState && !Sessions.csrfMatches(session.get(), ctx.header(Sessions.CSRF_HEADER))) {
            throw new ApiException(403, "csrf", "missing or wrong " + Sessions.CSRF_HEADER + " header");
        }
        return Optional.of(new Caller(session.get().role(), true));
    }

    /** {@code POST /api/session {"token": "..."}}: opens a dashboard session for a valid token. */
    private void login(Context ctx) {
        String token;
        try {
            token = new ObjectMapper().readTree(ctx.bodyAsBytes()).path("token").asText("");
        } catch (IOException e) {
            throw ApiException.badRequest("send {\"token\": \"...\"}");
        }
        Role role = tokens.roleOf(token).orElseThrow(() -> new ApiException(401, "unauthorized", "unknown token"));
        Sessions.Session s = sessions.open(role);
        ctx.header("Set-Cookie", Sessions.COOKIE + "=" + s.id() + "; Path=/; HttpOnly; SameSite=Strict; Max-Age="
                + sessions.ttl().toSeconds() + (ctx.scheme().equals("https") ? "; Secure" : ""));
        ctx.json(Map.of("role", role.label(), "csrfToken", s.csrfToken()));
    }

    private void logout(Context ctx) {
        sessions.close(ctx.cookie(Sessions.COOKIE));
        ctx.header("Set-Cookie", Sessions.COOKIE + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
        ctx.json(Map.of("loggedOut", true));
    }

    /** The caller's role, and for a session its CSRF token (the dashboard reads it after a reload). */
    private void whoami(Context ctx) {
        Caller caller = Caller.of(ctx);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("role", caller.role().label());
        body.put("seesPayloads", caller.role().seesPayloads());
        body.put("canOperate", caller.role().canOperate());
        if (caller.viaSession()) {
            sessions.find(ctx.cookie(Sessions.COOKIE)).ifPresent(s -> body.put("csrfToken", s.csrfToken()));
        }
        ctx.json(body);
    }

    private void ready(Context ctx) {
        try {
            int version = docket.schemaVersion();
            if (version != Docket.supportedSchemaVersion()) {
                error(ctx, 503, "not_ready", "schema " + docket.schema() + " is at version " + version + ", this server needs "
                        + Docket.supportedSchemaVersion() + ": run `docket migrate`");
                return;
            }
            ctx.json(Map.of("status", "ready", "schemaVersion", version));
        } catch (RuntimeException e) {
            error(ctx, 503, "not_ready", "database unreachable");
        }
    }

    private void stats(Context ctx) {
        ctx.json(Map.of("queues", docket.admin().stats().stream().map(Views::stats).toList()));
    }

    private static void openApi(Context ctx) throws IOException {
        try (InputStream in = DocketServer.class.getResourceAsStream("/openapi.json")) {
            if (in == null) {
                throw ApiException.notFound("no OpenAPI document in this build");
            }
            ctx.contentType("application/json").result(in.readAllBytes());
        }
    }

    /** On every response, errors and static dashboard assets included. */
    private static final Map<String, String> SECURITY_HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; "
                    + "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            "X-Content-Type-Options", "nosniff",
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer");

    private static void securityHeaders(Context ctx) {
        SECURITY_HEADERS.forEach(ctx::header);
        if (ctx.path().startsWith("/api")) {
            ctx.header("Cache-Control", "no-store");
        }
    }

    private static void error(Context ctx, int status, String code, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code);
        body.put("message", message == null ? code : message);
        ctx.status(status).json(body);
    }

    @Override
    public void close() {
        app.stop();
        metrics.close();
    }
}
