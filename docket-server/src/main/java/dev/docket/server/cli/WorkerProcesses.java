package dev.docket.server.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demo's worker JVMs: each runs {@code docket worker} from this JVM's class path, serving its own
 * metrics on a port of its own, its output printed with a {@code [worker-N]} prefix. A worker that dies (say, {@code kill -9}) is reported
 * and started again after {@link #RESTART_DELAY}; its jobs stay running until their lease expires
 * and the maintenance leader gives them back. {@link #close()} sends SIGTERM to all and waits for
 * them to drain. Should this JVM die without closing (SIGKILL), each worker sees its stdin end and
 * halts at once.
 */
final class WorkerProcesses implements AutoCloseable {

    static final Duration RESTART_DELAY = Duration.ofSeconds(5);

    private final List<String> workerArgs;
    private final int count;
    private final int firstMetricsPort;
    private final Duration lease;
    private final Duration drainLimit;
    private final DemoLog log;
    private final Map<Integer, Process> processes = new ConcurrentHashMap<>();
    private final List<Thread> copiers = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ScheduledExecutorService restarter = Executors.newSingleThreadScheduledExecutor(r ->
            Thread.ofPlatform().daemon().name("docket-demo-restarter").unstarted(r));
    private volatile boolean stopping;

    /**
     * @param workerArgs       the arguments after {@code worker}
     * @param firstMetricsPort worker N serves its metrics on 127.0.0.1, port {@code firstMetricsPort + N - 1}
     *                         (a restarted worker on the same one, so its URL stays valid)
     * @param drainLimit       how long {@link #close()} waits for a worker to drain before killing it
     */
    WorkerProcesses(List<String> workerArgs, int count, int firstMetricsPort, Duration lease, Duration drainLimit,
                    DemoLog log) {
        this.workerArgs = List.copyOf(workerArgs);
        this.count = count;
        this.firstMetricsPort = firstMetricsPort;
        this.lease = lease;
        this.drainLimit = drainLimit;
        this.log = log;
    }

    void start() throws IOException {
        for (int i = 1; i <= count; i++) {
            spawn(i);
        }
    }

    /** The pid of each worker, by number. */
    Map<Integer, Long> pids() {
        Map<Integer, Long> pids = new java.util.TreeMap<>();
        processes.forEach((n, p) -> pids.put(n, p.pid()));
        return pids;
    }

    /** Where worker {@code n} serves its metrics. */
    String metricsUrl(int n) {
        return "http://127.0.0.1:" + (firstMetricsPort + n - 1) + "/metrics";
    }

    long alive() {
        return processes.values().stream().filter(Process::isAlive).count();
    }

    private void spawn(int n) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DocketCommand.class.getName());
        command.add("worker");
        command.addAll(workerArgs);
        command.addAll(List.of("--metrics-address", "127.0.0.1:" + (firstMetricsPort + n - 1)));
        // The worker halts when its stdin, a pipe whose other end only this JVM holds, ends: at once when
        // this JVM dies, however. So that end stays open (never Process.destroy() or getOutputStream().close()).
        command.add("--exit-with-parent");
        Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE).redirectErrorStream(true)
                .start();
        processes.put(n, p);
        String prefix = "[worker-" + n + "] ";
        copiers.add(Thread.ofPlatform().daemon().name("docket-demo-worker-" + n + "-output").start(() -> copy(p, prefix)));
        p.onExit().thenAccept(exited -> exited(n, exited));
    }

    private void copy(Process p, String prefix) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                log.line(prefix + line);
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    private void exited(int n, Process p) {
        if (stopping) {
            return;
        }
        int status = p.exitValue();
        String what = status == 137
                ? "was killed (SIGKILL). Its running jobs stay 'running' until their " + Converters.format(lease)
                        + " lease expires; then the maintenance leader puts them back to ready and another worker "
                        + "takes them."
                : status == 143 ? "was stopped (SIGTERM) and gave its unfinished jobs back."
                : "exited with status " + status + "; jobs it still held come back when their lease expires.";
        log.line(String.format(Locale.ROOT, "[demo] worker-%d (pid %d) %s Starting a new worker-%d in %ds.", n, p.pid(),
                what, n, RESTART_DELAY.toSeconds()));
        restarter.schedule(() -> {
            if (stopping) {
                return;
            }
            try {
                spawn(n);
                log.line(String.format(Locale.ROOT, "[demo] worker-%d restarted as pid %d", n, processes.get(n).pid()));
            } catch (IOException e) {
                log.line("[demo] could not restart worker-" + n + ": " + e.getMessage());
            }
        }, RESTART_DELAY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** SIGTERM to every worker; waits for them to drain, then kills what is left. */
    @Override
    public void close() {
        stopping = true;
        restarter.shutdownNow();
        // SIGTERM through the handle: Process.destroy() would also close our end of the worker's
        // output, and its shutdown messages would be lost.
        processes.values().forEach(p -> p.toHandle().destroy());
        long deadline = System.nanoTime() + drainLimit.toNanos();
        for (Process p : processes.values()) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    log.line("[demo] worker pid " + p.pid() + " did not stop in time; killing it");
                    p.toHandle().destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
        for (Thread copier : copiers) {
            try {
                copier.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
