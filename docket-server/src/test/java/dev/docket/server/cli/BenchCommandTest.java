package dev.docket.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.server.cli.CliRunner.Run;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docket bench} hands its arguments to the benchmark jar in a JVM of its own and passes its
 * output and exit status through. A stand-in jar ({@link FakeBench}) takes the benchmark's place:
 * the real one is built after this module and is exercised by docket-bench's own test.
 */
class BenchCommandTest {

    /** Prints what it was given; {@code --fail} exits 3 after a line on stderr, like a failed benchmark. */
    public static final class FakeBench {
        public static void main(String[] args) {
            System.out.println("bench got: " + String.join(" ", args));
            if (args.length > 0 && args[args.length - 1].equals("--fail")) {
                System.err.println("bench: failed on purpose");
                System.exit(3);
            }
        }
    }

    @TempDir
    Path dir;

    private final Map<String, String> env = new HashMap<>();

    private Run cli(String... args) {
        return CliRunner.run(env, args);
    }

    /** A jar whose manifest runs {@link FakeBench} from this module's test classes. */
    private Path fakeBenchJar() throws Exception {
        Path classes = Path.of(FakeBench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FakeBench.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classes.toUri().toString());
        Path jar = dir.resolve("docket-bench.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(file, manifest)) {
            // the manifest is the whole jar
        }
        return jar;
    }

    @Test
    void passesEveryArgumentToTheBenchmarkAndItsOutputBack() throws Exception {
        env.put(BenchCommand.JAR_ENV, fakeBenchJar().toString());
        Run r = cli("bench", "--short", "--systems", "docket,raw", "--help");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("bench got: --short --systems docket,raw --help" + System.lineSeparator());
        assertThat(r.err()).isEmpty();
    }

    /** With no benchmark jar built, `docket bench --help` answers from docket.jar, and says how to get the rest. */
    @Test
    void helpWithoutABuiltBenchmarkIsThisCommandsHelp() {
        env.put(BenchCommand.JAR_ENV, "/nonexistent/docket-bench.jar");
        for (String help : List.of("--help", "-h")) {
            Run r = cli("bench", help);
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("Usage: docket bench").contains("Runs the benchmark")
                    .contains("./mvnw -pl docket-bench -am package");
            assertThat(r.err()).isEmpty();
        }
    }

    @Test
    void aFailingBenchmarkFailsTheCommandWithItsStatusAndMessage() throws Exception {
        env.put(BenchCommand.JAR_ENV, fakeBenchJar().toString());
        Run r = cli("bench", "--fail");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.err()).contains("bench: failed on purpose");
    }

    @Test
    void aMissingBenchmarkJarIsOneLineSayingHowToBuildIt() {
        env.put(BenchCommand.JAR_ENV, dir.resolve("nowhere.jar").toString());
        Run r = cli("bench", "--short");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).startsWith("docket: DOCKET_BENCH_JAR is ").contains("not a file");
        assertThat(r.err().strip().lines()).hasSize(1);
        assertThat(r.out()).isEmpty();
    }

    /**
     * {@code bin/docket bench --help} prints the help from docket.jar without building the benchmark
     * first: run on a copy of bin/ whose Maven Wrapper and java only record that they ran.
     */
    @Test
    void benchHelpBuildsNothing(@org.junit.jupiter.api.io.TempDir Path root) throws Exception {
        Path bin = java.nio.file.Files.createDirectories(root.resolve("bin"));
        for (String script : List.of("docket", "find-jdk.sh", "build-jar.sh", "node-peers.sh")) {
            java.nio.file.Files.copy(Path.of("..", "bin", script), bin.resolve(script));
        }
        java.nio.file.Files.createDirectories(root.resolve("docket-server/target"));
        java.nio.file.Files.writeString(root.resolve("docket-server/target/docket.jar"), "");
        Path built = root.resolve("built");
        Path ran = root.resolve("ran");
        executable(root.resolve("mvnw"), "#!/bin/sh\necho \"$@\" >> '" + built + "'\n");
        Path jdk = java.nio.file.Files.createDirectories(root.resolve("jdk/bin"));
        executable(jdk.resolve("javac"), "#!/bin/sh\nexit 0\n");
        executable(jdk.resolve("java"), "#!/bin/sh\ncase \"$1\" in -XshowSettings*) echo '    java.specification.version = 25' >&2; "
                + "exit 0;; esac\necho \"$@\" >> '" + ran + "'\n");

        for (List<String> args : List.of(List.of("bench", "--help"), List.of("bench", "-h"))) {
            ProcessBuilder builder = new ProcessBuilder(new java.util.ArrayList<>(List.of("bash", bin.resolve("docket").toString())));
            builder.command().addAll(args);
            builder.environment().put("JAVA_HOME", root.resolve("jdk").toString());
            builder.environment().remove("DOCKET_BENCH_JAR");
            Process p = builder.redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(output).isZero();
            assertThat(java.nio.file.Files.readString(ran)).as(output).contains(String.join(" ", args));
            assertThat(built).as("the Maven Wrapper ran: %s", output).doesNotExist();
        }
    }

    private static void executable(Path file, String text) throws java.io.IOException {
        java.nio.file.Files.writeString(file, text);
        file.toFile().setExecutable(true);
    }
}
