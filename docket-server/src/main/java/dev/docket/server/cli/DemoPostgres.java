package dev.docket.server.cli;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The demo's embedded PostgreSQL, which must not outlive the demo however the demo ends. pg_ctl starts
 * the server in a session of its own, so neither the JVM's exit nor a signal to the demo's process group
 * reaches it. Two things stop it instead:
 * <ul>
 *   <li>a watchdog, a small shell in a session of its own, blocks reading a pipe whose other end only
 *       this JVM holds. However the JVM ends (SIGKILL included) the kernel closes that end, the read
 *       returns, and the watchdog stops the server (fast shutdown) and deletes its directory;</li>
 *   <li>a run whose JVM and watchdog were both killed (a SIGKILL to the whole group) is found by the
 *       next demo: its lock is free, so its server is stopped and its directory deleted before the
 *       new one starts.</li>
 * </ul>
 * Each run lives in {@code $TMPDIR/docket-demo-*}: the lock file {@code owner.lock}, held while the demo
 * runs, and the data directory {@code data}.
 */
final class DemoPostgres implements AutoCloseable {

    static final String RUN_PREFIX = "docket-demo-";
    private static final String LOCK = "owner.lock";
    private static final Duration STOP_WAIT = Duration.ofSeconds(15);

    /** Reads stdin until this JVM is gone, then stops the postmaster of data dir $1 and deletes run dir $2. */
    private static final String WATCHDOG = """
            trap '' INT TERM HUP
            cat > /dev/null
            pid=$(head -n 1 "$1/postmaster.pid" 2>/dev/null || true)
            if [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null; then
              i=0
              while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
              kill -KILL "$pid" 2>/dev/null || true
            fi
            rm -rf "$2"
            """;

    private final Path run;
    private final FileChannel lockChannel;
    private final Process watchdog;
    private final EmbeddedPostgres postgres;

    private DemoPostgres(Path run, FileChannel lockChannel, Process watchdog, EmbeddedPostgres postgres) {
        this.run = run;
        this.lockChannel = lockChannel;
        this.watchdog = watchdog;
        this.postgres = postgres;
    }

    /**
     * Stops and deletes what earlier demos left behind (reported through {@code say}), then starts
     * PostgreSQL with {@code settings} applied to its builder.
     */
    static DemoPostgres start(Path tmp, Consumer<EmbeddedPostgres.Builder> settings, Consumer<String> say)
            throws IOException {
        for (Path stale : sweepStale(tmp)) {
            say.accept("[demo] stopped and deleted the PostgreSQL an earlier demo left behind in " + stale);
        }
        Path run = Files.createTempDirectory(tmp, RUN_PREFIX);
        FileChannel lockChannel = FileChannel.open(run.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        lockChannel.lock();
        Path data = run.resolve("data");
        // Started before PostgreSQL, so that a kill while it starts is covered too.
        Process watchdog = startWatchdog(data, run);
        try {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setRegisterShutdownHook(false)
                    .setDataDirectory(data)
                    .setCleanDataDirectory(true);
            settings.accept(builder);
            return new DemoPostgres(run, lockChannel, watchdog, builder.start());
        } catch (IOException | RuntimeException e) {
            releaseWatchdog(watchdog);
            lockChannel.close();
            throw e;
        }
    }

    EmbeddedPostgres postgres() {
        return postgres;
    }

    /** The directory of this run (deleted when the demo ends). */
    Path runDirectory() {
        return run;
    }

    @Override
    public void close() throws IOException {
        Optional<ProcessHandle> postmaster = postmaster(run.resolve("data"));
        try {
            postgres.close();
        } finally {
            // pg_ctl returns once the pid file is gone, a moment before the postmaster has exited.
            postmaster.ifPresent(DemoPostgres::stop);
            lockChannel.close();
            // The server is stopped: the watchdog finds nothing to stop and deletes the run directory.
            releaseWatchdog(watchdog);
        }
    }

    private static Process startWatchdog(Path data, Path run) throws IOException {
        List<String> command = new ArrayList<>();
        // In a session of its own, so that Ctrl-C or a kill of the demo's process group does not reach it.
        if (Files.isExecutable(Path.of("/usr/bin/setsid")) || Files.isExecutable(Path.of("/bin/setsid"))) {
            command.add("setsid");
        }
        command.addAll(List.of("sh", "-c", WATCHDOG, "docket-demo-watchdog", data.toString(), run.toString()));
        return new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /** Closes the watchdog's pipe, so that it does its work and exits, and waits for it. */
    private static void releaseWatchdog(Process watchdog) {
        try (OutputStream pipe = watchdog.getOutputStream()) {
            pipe.flush();
        } catch (IOException e) {
            // The watchdog is gone already.
        }
        try {
            if (!watchdog.waitFor(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                watchdog.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops and deletes every run in {@code tmp} whose demo is gone (its lock is free); returns them. */
    static List<Path> sweepStale(Path tmp) throws IOException {
        List<Path> swept = new ArrayList<>();
        try (DirectoryStream<Path> runs = Files.newDirectoryStream(tmp, RUN_PREFIX + "*")) {
            for (Path run : runs) {
                if (Files.isDirectory(run) && isAbandoned(run)) {
                    stopPostmaster(run.resolve("data"));
                    deleteTree(run);
                    swept.add(run);
                }
            }
        }
        return swept;
    }

    private static boolean isAbandoned(Path run) throws IOException {
        Path lockFile = run.resolve(LOCK);
        if (!Files.exists(lockFile)) {
            // A run that has not created its lock yet, or one being deleted: not ours to judge.
            return false;
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
             FileLock lock = channel.tryLock()) {
            return lock != null;
        } catch (OverlappingFileLockException e) {
            return false;
        }
    }

    private static void stopPostmaster(Path data) throws IOException {
        postmaster(data).ifPresent(DemoPostgres::stop);
    }

    /** The running postmaster of {@code data}, from its pid file. */
    private static Optional<ProcessHandle> postmaster(Path data) throws IOException {
        Path pidFile = data.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(pidFile)) {
            return lines.findFirst().map(String::strip).filter(s -> s.matches("\\d+")).map(Long::parseLong)
                    .flatMap(ProcessHandle::of)
                    .filter(p -> p.info().command().map(c -> c.endsWith("postgres")).orElse(false));
        }
    }

    /** Asks the postmaster for a fast shutdown unless it is exiting already, waits, and kills it if it must. */
    private static void stop(ProcessHandle postmaster) {
        try {
            if (!postmaster.isAlive()) {
                return;
            }
            // SIGINT is PostgreSQL's fast shutdown; ProcessHandle can send only TERM (which waits for clients) and KILL.
            new ProcessBuilder("kill", "-INT", Long.toString(postmaster.pid())).start().waitFor();
            postmaster.onExit().get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            postmaster.destroyForcibly();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
