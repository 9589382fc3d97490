package dev.docket.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Node process of one Node.js queue, {@code node/<name>.mjs} speaking {@code peer-protocol.mjs}, kept
 * for a whole benchmark run: each measurement opens the queue on its fresh database and closes it
 * again, so the process (its compiled code, its modules) is as warm as a JVM system's. Started on the
 * first call; each call is a JSON line answered by its id; handler starts come back with the Node
 * process's monotonic clock, which is the clock of {@link System#nanoTime()} on Linux.
 */
final class NodeDriver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Long enough for a chunk of 1,000 enqueues on a loaded machine, short enough to end a hung run. */
    private static final long CALL_TIMEOUT_SECONDS = 120;

    private final String name;
    private final Map<Long, CompletableFuture<Void>> calls = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile Sut.Starts starts = Sut.Starts.NONE;
    private Process process;
    private Writer stdin;
    private int processesStarted;

    /** @param name the npm package, also the driver script's name */
    NodeDriver(String name) {
        this.name = name;
    }

    /** Where the handler starts go from now on. */
    void reportStartsTo(Sut.Starts starts) {
        this.starts = starts;
    }

    /** How many Node processes this driver started: one per run unless a process died. */
    synchronized int processesStarted() {
        return processesStarted;
    }

    /** Sends a command and waits for its answer; starts the Node process first when none is running. */
    void call(String op, Map<String, Object> fields) throws Exception {
        long id = ids.incrementAndGet();
        CompletableFuture<Void> answer = new CompletableFuture<>();
        calls.put(id, answer);
        Map<String, Object> command = new LinkedHashMap<>(fields);
        command.put("id", id);
        command.put("op", op);
        try {
            synchronized (this) {
                if (process == null || !process.isAlive()) {
                    start();
                }
                stdin.write(JSON.writeValueAsString(command));
                stdin.write('\n');
                stdin.flush();
            }
            answer.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            calls.remove(id);
        }
    }

    private void start() throws IOException {
        Process p = NodeRuntime.start(name);
        process = p;
        processesStarted++;
        stdin = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> readAnswers(p), name + "-driver");
        reader.setDaemon(true);
        reader.start();
    }

    private void readAnswers(Process p) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] f = line.split(" ", 4);
                if (f[0].equals("S") && f.length == 3) {
                    starts.started(Long.parseLong(f[1]), Long.parseLong(f[2]));
                } else if (f[0].equals("R") && f.length >= 3) {
                    CompletableFuture<Void> call = calls.remove(Long.parseLong(f[1]));
                    if (call != null && f[2].equals("ok")) {
                        call.complete(null);
                    } else if (call != null) {
                        call.completeExceptionally(new IllegalStateException(name + ": " + (f.length > 3 ? f[3] : line)));
                    }
                } else {
                    Bench.log(name + " driver: " + line);
                }
            }
        } catch (IOException | RuntimeException e) {
            Bench.log(name + " driver output unreadable: " + e);
        }
        IllegalStateException gone = new IllegalStateException(name + " driver process ended");
        calls.values().forEach(c -> c.completeExceptionally(gone));
    }

    /** Ends the Node process: closing its stdin makes it close the queue and exit. */
    @Override
    public synchronized void close() {
        if (process == null) {
            return;
        }
        try {
            stdin.close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } finally {
            process = null;
        }
    }
}
