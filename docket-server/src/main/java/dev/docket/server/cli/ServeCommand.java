package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.server.DocketServer;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.server.metrics.QueueMetrics;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket serve}: the REST API, the dashboard, metrics, and the maintenance leader. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Serves the REST API (/api), the dashboard (/), Prometheus metrics (/metrics), /health and "
                + "/ready, and takes part in the election of the maintenance leader, until SIGTERM or Ctrl-C.",
                "",
                "Tokens: DOCKET_TOKENS=role:token,role:token and/or --tokens-file (one 'ROLE TOKEN' per line); roles "
                        + "are viewer, producer, operator and admin; tokens have at least "
                        + TokenStore.MIN_TOKEN_LENGTH + " characters. With none, an admin token is generated "
                        + "and printed, on a loopback address only: any other address needs tokens."},
        footerHeading = "%nExample:%n",
        footer = {"  DOCKET_TOKENS=admin:$(openssl rand -hex 32) \\",
                "      docket serve --host 0.0.0.0 --database-url postgres://app@db/app",
                "",
                "Exit status: 0 stopped (SIGTERM, Ctrl-C); 1 could not serve (the port in use, the database",
                "unreachable, the schema not current), with one line saying why; 2 bad input."})
final class ServeCommand extends DatabaseCommand {

    @Option(names = "--host", paramLabel = "ADDRESS", defaultValue = "127.0.0.1", order = 1,
            description = "The address to listen on (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080", order = 2,
            description = "The port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;

    @Option(names = "--tokens-file", paramLabel = "FILE", order = 3,
            description = "API tokens, one 'ROLE TOKEN' per line ('#' starts a comment).")
    Path tokensFile;

    @Option(names = "--max-body-bytes", paramLabel = "N", defaultValue = "1048576", order = 4,
            description = "The largest request body accepted; larger get 413 (default: ${DEFAULT-VALUE}).")
    long maxBodyBytes;

    @Option(names = "--body-read-timeout", paramLabel = "DURATION", defaultValue = "5s", order = 4,
            converter = Converters.DurationConverter.class,
            description = "A request body none of which arrives for this long is refused with 408 (default: ${DEFAULT-VALUE}).")
    java.time.Duration bodyReadTimeout;

    @Option(names = "--max-payload-bytes", paramLabel = "N", defaultValue = "262144", order = 5,
            description = "The largest job payload accepted, in bytes of JSON; larger get 413 (default: ${DEFAULT-VALUE}).")
    int maxPayloadBytes;

    @Option(names = "--no-maintenance", order = 6,
            description = "Do not take part in the election of the maintenance leader (a worker must).")
    boolean noMaintenance;

    @Option(names = "--migrate", order = 7, description = "Apply missing migrations at start instead of refusing to start.")
    boolean migrate;

    final Lifetime lifetime = new Lifetime();

    @Override
    public Integer call() throws Exception {
        DocketCommand.verboseLogging();
        DocketServer.Config config;
        try {
            config = DocketServer.Config.defaults().withHost(host).withPort(port).withMaxBodyBytes(maxBodyBytes)
                    .withBodyReadTimeout(bodyReadTimeout);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage(e.getMessage());
        }
        TokenStore tokens = tokens(database.root());
        String generated = tokens.isEmpty() ? generateAdminToken(tokens) : null;
        PrintWriter out = spec.commandLine().getOut();
        if (database.several()) {
            return serveSeveral(tokens, config, generated, out);
        }
        return lifetime.run("serve", () -> {
            try (Database db = database.open(10, b -> b.maxPayloadBytes(maxPayloadBytes)
                    .meterRegistry(QueueMetrics.registryFor()))) {
                if (migrate) {
                    db.docket().migrate();
                } else {
                    db.requireCurrentSchema();
                }
                // The server first: a port in use ends the command with its one line, before a worker started.
                try (DocketServer server = startServer(db, tokens, config)) {
                    MaintenanceLeader leader = noMaintenance ? null : MaintenanceLeader.start(db.docket());
                    try {
                        out.printf("Docket serving on %s/ (dashboard), API under /api, metrics at /metrics; database %s, "
                                + "schema %s.%n", server.baseUrl(), db.url().display(), db.docket().schema());
                        if (generated != null) {
                            out.printf("Admin token (generated for this run; set DOCKET_TOKENS to choose your own): %s%n",
                                    generated);
                        }
                        out.flush();
                        lifetime.awaitStop();
                    } finally {
                        if (leader != null) {
                            leader.close();
                        }
                    }
                }
                out.println("docket serve stopped.");
                out.flush();
            }
        });
    }

    /**
     * Several named databases: the first (--database-url's, 'default') serves the API and dashboard as
     * with one; every metric carries its database label; each database elects its own maintenance leader.
     */
    private int serveSeveral(TokenStore tokens, DocketServer.Config config, String generated, PrintWriter out)
            throws Exception {
        return lifetime.run("serve", () -> {
            Map<String, Database> open = database.openAll(10, (name, b) -> b.maxPayloadBytes(maxPayloadBytes)
                    .meterRegistry(QueueMetrics.registryFor(name)));
            List<MaintenanceLeader> leaders = new ArrayList<>();
            try {
                Map<String, Docket> dockets = new LinkedHashMap<>();
                for (Map.Entry<String, Database> e : open.entrySet()) {
                    Database labelled = e.getValue();
                    try {
                        if (migrate) {
                            labelled.docket().migrate();
                        } else {
                            labelled.requireCurrentSchema();
                        }
                    } catch (CommandFailure f) {
                        throw CommandFailure.failed("database " + e.getKey() + ": " + f.getMessage());
                    }
                    dockets.put(e.getKey(), labelled.docket());
                }
                try (DocketServer server = startServer(dockets, tokens, config)) {
                    if (!noMaintenance) {
                        dockets.values().forEach(d -> leaders.add(MaintenanceLeader.start(d)));
                    }
                    out.printf("Docket serving on %s/ (dashboard), API under /api, metrics at /metrics; databases %s "
                            + "(the first is the default; /api/databases shows all), schema %s.%n", server.baseUrl(),
                            String.join(", ", open.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue().url()
                                    .display()).toList()), database.schema);
                    if (generated != null) {
                        out.printf("Admin token (generated for this run; set DOCKET_TOKENS to choose your own): %s%n",
                                generated);
                    }
                    out.flush();
                    lifetime.awaitStop();
                } finally {
                    leaders.forEach(MaintenanceLeader::close);
                }
                out.println("docket serve stopped.");
                out.flush();
            } finally {
                open.values().forEach(Database::close);
            }
        });
    }

    /** Stops a server started in this JVM, as SIGTERM would. */
    void stop() {
        lifetime.stop();
    }

    /** With no tokens given, one admin token for this run: on a loopback address only. */
    private String generateAdminToken(TokenStore tokens) {
        if (!DocketServer.isLoopback(host)) {
            throw CommandFailure.usage("refusing to serve on " + host + " without API tokens: set DOCKET_TOKENS="
                    + "admin:TOKEN or pass --tokens-file (only a loopback address gets a generated token)");
        }
        String generated = TokenStore.generate();
        tokens.add(Role.ADMIN, generated);
        return generated;
    }

    private TokenStore tokens(DocketCommand root) {
        TokenStore tokens = new TokenStore();
        String env = root.env("DOCKET_TOKENS");
        if (env != null && !env.isBlank()) {
            try {
                tokens.addAll(env);
            } catch (IllegalArgumentException e) {
                throw CommandFailure.usage("DOCKET_TOKENS: " + e.getMessage());
            }
        }
        if (tokensFile != null) {
            try {
                tokens.addFile(tokensFile);
            } catch (IOException e) {
                throw CommandFailure.usage("cannot read --tokens-file " + tokensFile + ": " + ErrorMessages.io(e));
            } catch (IllegalArgumentException e) {
                throw CommandFailure.usage("--tokens-file: " + e.getMessage());
            }
        }
        return tokens;
    }

    static DocketServer startServer(Database db, TokenStore tokens, DocketServer.Config config) {
        return startServer(Map.of("default", db.docket()), tokens, config);
    }

    static DocketServer startServer(Map<String, Docket> databases, TokenStore tokens, DocketServer.Config config) {
        if (config.port() != 0) {
            // Javalin logs a failed bind at ERROR, with a stack trace, before it throws: a port in use
            // is found here first and said in one line. (A port taken in the instant between is still refused.)
            try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                probe.bind(new java.net.InetSocketAddress(config.host(), config.port()));
            } catch (IOException e) {
                throw CommandFailure.failed("cannot serve on " + config.host() + ":" + config.port() + ": "
                        + ErrorMessages.io(e));
            }
        }
        try {
            return DocketServer.start(databases, tokens, config);
        } catch (RuntimeException e) {
            throw CommandFailure.failed("cannot serve on " + config.host() + ":" + config.port() + ": "
                    + ErrorMessages.oneLine(e.getMessage()));
        }
    }
}
