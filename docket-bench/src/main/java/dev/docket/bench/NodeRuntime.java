package dev.docket.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where the Node.js peers live: a directory with Node 22 and the npm packages of
 * {@code dev/docket/bench/node/package.json} in its {@code node_modules}. {@code bin/bench} installs them
 * there with npm; this class only finds them and starts a driver script.
 */
final class NodeRuntime {
    private NodeRuntime() {
    }

    /** The pinned versions of Node and the peers, e.g. {@code "graphile-worker 0.18.0, node 22.23.3, ..."}. */
    static String pinnedVersions() throws IOException {
        try (InputStream in = NodeRuntime.class.getResourceAsStream("node/package.json")) {
            JsonNode dependencies = new ObjectMapper().readTree(in).path("dependencies");
            return dependencies.properties().stream().map(e -> e.getKey() + " " + e.getValue().asText())
                    .collect(Collectors.joining(", "));
        }
    }

    /** Whether Node and the npm package {@code name} are installed in {@code dir}. */
    static boolean installed(Path dir, String name) {
        return Files.isExecutable(dir.resolve("node_modules/node/bin/node"))
                && Files.isDirectory(dir.resolve("node_modules").resolve(name));
    }

    /** {@code $DOCKET_BENCH_NODE_DIR}, else {@code $XDG_CACHE_HOME/docket-bench/node} (or under {@code ~/.cache}). */
    static Path dir() {
        String explicit = System.getenv("DOCKET_BENCH_NODE_DIR");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit);
        }
        String cache = System.getenv("XDG_CACHE_HOME");
        Path base = cache != null && !cache.isBlank() ? Path.of(cache) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("docket-bench").resolve("node");
    }

    /**
     * Starts the driver of the npm package {@code name}, {@code node/<name>.mjs}: its stdin and stdout are the
     * driver's protocol, its stderr goes to ours. Fails with what to do when Node or the package is missing.
     */
    static Process start(String name) throws IOException {
        return start(name, dir());
    }

    /** {@link #start(String)} with Node and the packages in {@code dir}. */
    static Process start(String name, Path dir) throws IOException {
        String script = name + ".mjs";
        if (!installed(dir, name)) {
            throw new IllegalStateException("Node 22 and " + name + " are not installed in " + dir
                    + ": bin/bench installs them there with npm (or set DOCKET_BENCH_NODE_DIR to such a directory)");
        }
        // The drivers import their packages by name, and ES modules resolve them from the script's own
        // directory upwards (NODE_PATH does not apply): so the scripts go next to node_modules.
        Path drivers = Files.createDirectories(dir.resolve("drivers"));
        for (String file : List.of("peer-protocol.mjs", script)) {
            try (InputStream in = NodeRuntime.class.getResourceAsStream("node/" + file)) {
                if (in == null) {
                    throw new IllegalStateException("driver script " + file + " is missing from the benchmark");
                }
                Files.copy(in, drivers.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return new ProcessBuilder(dir.resolve("node_modules/node/bin/node").toString(), drivers.resolve(script).toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }
}
