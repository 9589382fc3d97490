package dev.docket.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code pg_ctl} of the embedded PostgreSQL binaries, for the servers the harness runs itself (a
 * standby, a second primary). The binaries are those zonky unpacked for the first server: found
 * through the executable of its postmaster, since zonky does not say where it put them.
 */
final class PgCtl {

    private final Path binDir;

    private PgCtl(Path binDir) {
        this.binDir = binDir;
    }

    /** The binaries of the server running on {@code dataDir} (its pid file's first line is the postmaster's pid). */
    static PgCtl of(Path dataDir) throws IOException {
        long pid = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).getFirst().strip());
        String postgres = ProcessHandle.of(pid).flatMap(p -> p.info().command())
                .orElseThrow(() -> new IllegalStateException("cannot find the executable of postmaster " + pid));
        return new PgCtl(Path.of(postgres).getParent());
    }

    /** The directory of the binaries ({@code initdb}, {@code pg_ctl}, {@code postgres}). */
    Path binDir() {
        return binDir;
    }

    /** Starts a server on {@code dataDir} and waits until it takes connections. */
    void start(Path dataDir, int port, Map<String, String> config, Path log) throws IOException, InterruptedException {
        StringBuilder options = new StringBuilder("-F -p " + port);
        config.forEach((k, v) -> options.append(" -c ").append(k).append('=').append(v));
        run("-D", dataDir.toString(), "-l", log.toString(), "-o", options.toString(), "-w", "-t", "60", "start");
    }

    /** Kills a server as a crash would: no checkpoint, no goodbye to its clients. */
    void stopImmediately(Path dataDir) throws IOException, InterruptedException {
        run("-D", dataDir.toString(), "-m", "immediate", "-w", "stop");
    }

    void stopFast(Path dataDir) throws IOException, InterruptedException {
        run("-D", dataDir.toString(), "-m", "fast", "-w", "stop");
    }

    /** Promotes a standby and waits until it takes writes. */
    void promote(Path dataDir) throws IOException, InterruptedException {
        run("-D", dataDir.toString(), "-w", "-t", "60", "promote");
    }

    private void run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            // PostgreSQL refuses to run as root; like zonky, run it in a user namespace of its own, where it is not.
            command.addAll(List.of("unshare", "-U"));
        }
        command.add(binDir.resolve("pg_ctl").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output.strip());
        }
    }
}
