package dev.docket.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * Scale-out: N pre-enqueued no-op jobs drained by P worker processes (separate JVMs running
 * {@link ScaleOutWorker}) of concurrency c each, against one PostgreSQL. The clock starts when every
 * process has opened Docket and is told to go, and stops when the live table is empty, so JVM start-up
 * is not counted.
 */
final class ScaleOut {
    private ScaleOut() {
    }

    static Map<String, double[]> run(DocketSut sut, DataSource ds, String jdbcUrl, int processes, int concurrency,
                                     int jobs, Duration limit) throws Exception {
        Enqueue.load(sut, jobs);
        List<Process> workers = new ArrayList<>();
        try {
            for (int i = 0; i < processes; i++) {
                workers.add(start(jdbcUrl, concurrency));
            }
            for (Process p : workers) {
                awaitReady(p);
            }
            long t0 = System.nanoTime();
            for (Process p : workers) {
                send(p, "go");
            }
            long deadline = t0 + limit.toNanos();
            long left;
            while ((left = sut.liveJobs().count(ds)) > 0 && System.nanoTime() < deadline) {
                for (Process p : workers) {
                    if (!p.isAlive()) {
                        throw new IllegalStateException("a worker process exited with " + p.exitValue());
                    }
                }
                Thread.sleep(20);
            }
            double s = (System.nanoTime() - t0) / 1e9;
            if (left > 0) {
                throw new IllegalStateException(left + " jobs left after " + (int) s + " s");
            }
            return Map.of("scale-out jobs/s", new double[]{jobs / s});
        } finally {
            for (Process p : workers) {
                stop(p);
            }
        }
    }

    /** The same java and class path as this JVM: works from the shaded jar and from the test class path. */
    private static Process start(String jdbcUrl, int concurrency) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                ScaleOutWorker.class.getName(), jdbcUrl, Integer.toString(concurrency))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    private static void awaitReady(Process p) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"ready".equals(line)) {
            throw new IllegalStateException("worker process did not start: " + line);
        }
    }

    private static void send(Process p, String line) throws IOException {
        Writer in = p.outputWriter(StandardCharsets.UTF_8);
        in.write(line + "\n");
        in.flush();
    }

    private static void stop(Process p) throws InterruptedException {
        try {
            send(p, "stop");
            p.getOutputStream().close();
        } catch (IOException e) {
            // already gone: nothing to stop
        }
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }
}
