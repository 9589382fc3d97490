package dev.docket.server.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code docket bench}: the benchmark of docs/performance.md, the same as {@code bin/bench}. It runs
 * {@code docket-bench.jar} in a JVM of its own because that jar carries the Java peers it compares
 * (db-scheduler, JobRunr) and the drivers of the Node.js ones, which are not part of {@code docket.jar}. Every argument goes to the
 * benchmark unchanged ({@code docket bench --help} prints its options); the exit status is its.
 */
@Command(name = "bench", sortOptions = false,
        description = {"Runs the benchmark: Docket, db-scheduler, JobRunr, graphile-worker, pg-boss (Node.js, installed "
                + "from npm into a cache) and a raw-SQL loop side by side on one PostgreSQL (embedded 18 by "
                + "default), results as Markdown, JSON and SVG.",
                "Every argument goes to the benchmark: `docket bench --help` lists them; `docket bench --short` "
                        + "takes about a minute.",
                "The benchmark jar comes from DOCKET_BENCH_JAR, else docket-bench.jar next to docket.jar or in "
                        + "the source tree (bin/docket builds it when it is missing)."})
final class BenchCommand implements Callable<Integer> {

    static final String JAR_ENV = "DOCKET_BENCH_JAR";

    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> arguments = new ArrayList<>();

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (benchJarIfBuilt() == null && (arguments.contains("--help") || arguments.contains("-h"))) {
            // Help without a build: this command's own, and where the benchmark's options are listed.
            PrintWriter out = spec.commandLine().getOut();
            spec.commandLine().usage(out);
            out.println();
            out.println("The benchmark's own options (systems, scenarios, job counts, repetitions) are listed by its jar,");
            out.println("which is not built yet: `./mvnw -pl docket-bench -am package` (or any `bin/docket bench` run");
            out.println("builds it), then `docket bench --help` again. docs/performance.md describes every scenario.");
            out.flush();
            return 0;
        }
        Path jar = benchJar();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString()));
        command.addAll(arguments);
        Process bench = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.INHERIT).start();
        Thread out = copy(bench.getInputStream(), spec.commandLine().getOut(), "out");
        Thread err = copy(bench.getErrorStream(), spec.commandLine().getErr(), "err");
        try {
            int status = bench.waitFor();
            out.join();
            err.join();
            return status;
        } finally {
            // An interrupted docket (Ctrl-C reaches the whole process group anyway) must not leave the benchmark behind.
            bench.destroy();
        }
    }

    /** The benchmark jar where {@link #benchJar} would find it, or {@code null}. */
    private Path benchJarIfBuilt() {
        try {
            return benchJar();
        } catch (CommandFailure e) {
            return null;
        }
    }

    private Path benchJar() {
        String given = root().env(JAR_ENV);
        if (given != null && !given.isBlank()) {
            Path jar = Path.of(given);
            if (!Files.isRegularFile(jar)) {
                throw CommandFailure.failed(JAR_ENV + " is " + given + ", which is not a file");
            }
            return jar;
        }
        for (Path candidate : defaultLocations()) {
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw CommandFailure.failed("docket-bench.jar not found: build it with `./mvnw -pl docket-bench -am package`"
                + " (bin/docket does that itself), or set " + JAR_ENV);
    }

    /** Next to the running docket.jar (a distribution), then in the source tree it was built in. */
    private static List<Path> defaultLocations() {
        try {
            Path here = Path.of(BenchCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path dir = Files.isDirectory(here) ? here : here.getParent();
            return List.of(dir.resolve("docket-bench.jar"),
                    dir.resolve("../../docket-bench/target/docket-bench.jar").normalize());
        } catch (URISyntaxException | RuntimeException e) {
            return List.of();
        }
    }

    private DocketCommand root() {
        return (DocketCommand) spec.root().userObject();
    }

    private static Thread copy(InputStream from, PrintWriter to, String name) {
        return Thread.ofPlatform().daemon().name("docket-bench-" + name).start(() -> {
            try (Reader in = new InputStreamReader(from, StandardCharsets.UTF_8)) {
                char[] buffer = new char[8192];
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    to.write(buffer, 0, n);
                    to.flush();
                }
            } catch (IOException e) {
                to.println("docket: reading the benchmark's output failed: " + e.getMessage());
                to.flush();
            }
        });
    }
}
