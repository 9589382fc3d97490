package dev.docket.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The CPU time a PostgreSQL server on this host has used: user and system time of its postmaster and of
 * every process under it (backends, autovacuum, the WAL writer, the checkpointer, ...), read from
 * {@code /proc}. A process that exited was reaped by the postmaster, which then carries its time in its own
 * children's counters, so the difference of two readings is the server's CPU time between them, whoever
 * came and went. Only where the server's data directory and {@code /proc} are readable (a server on this
 * host): {@link #of} is empty otherwise.
 */
final class PostgresCpu {

    private static final long TICKS_PER_SECOND = ticksPerSecond();

    private final long postmaster;

    private PostgresCpu(long postmaster) {
        this.postmaster = postmaster;
    }

    /** The server behind {@code ds}, when it runs on this host. */
    static Optional<PostgresCpu> of(DataSource ds) {
        try (var c = ds.getConnection()) {
            Path pidFile = Path.of(Db.string(c, "SHOW data_directory")).resolve("postmaster.pid");
            long pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().strip());
            return ProcessHandle.of(pid).isPresent() && Files.isReadable(stat(pid))
                    ? Optional.of(new PostgresCpu(pid)) : Optional.empty();
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** The server's CPU time so far, in microseconds. */
    long micros() {
        long ticks = ticks(postmaster);
        for (ProcessHandle child : ProcessHandle.of(postmaster).map(p -> p.descendants().toList()).orElse(List.of())) {
            ticks += ticks(child.pid());
        }
        return ticks * 1_000_000L / TICKS_PER_SECOND;
    }

    /** utime + stime + cutime + cstime of one process; 0 for one that exited meanwhile (its parent has its time). */
    private static long ticks(long pid) {
        try {
            String stat = Files.readString(stat(pid));
            // The fields after the command name, which is in parentheses and may hold spaces: state is the first.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static Path stat(long pid) {
        return Path.of("/proc", Long.toString(pid), "stat");
    }

    private static long ticksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | InterruptedException | NumberFormatException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return 100;
        }
    }
}
