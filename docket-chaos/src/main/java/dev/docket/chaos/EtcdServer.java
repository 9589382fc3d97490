package dev.docket.chaos;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One etcd member (Debian's {@code etcd-server}), Patroni's store for the {@code patroni} scenario: its
 * client and peer URLs on free loopback ports, its data in {@code dir}, its output in {@code log}.
 */
final class EtcdServer implements AutoCloseable {

    static final String BINARY = "/usr/bin/etcd";

    private final Process etcd;
    private final int clientPort;

    EtcdServer(Path dir, Path log) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(BINARY))) {
            throw new IllegalStateException(BINARY + " is missing: apt-get install etcd-server");
        }
        clientPort = ReplicatedServers.freePort();
        int peerPort = ReplicatedServers.freePort();
        String client = "http://127.0.0.1:" + clientPort;
        String peer = "http://127.0.0.1:" + peerPort;
        Files.createDirectories(dir);
        etcd = new ProcessBuilder(List.of(BINARY, "--name", "chaos", "--data-dir", dir.resolve("data").toString(),
                "--listen-client-urls", client, "--advertise-client-urls", client,
                "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                "--initial-cluster", "chaos=" + peer, "--initial-cluster-state", "new"))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        awaitHealthy(log);
    }

    private void awaitHealthy(Path log) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + clientPort + "/health"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                HttpResponse<String> r = http.send(health, HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && r.body().contains("\"health\":\"true\"")) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (!etcd.isAlive() || System.nanoTime() > deadline) {
                close();
                throw new IOException("etcd did not become healthy; see " + log);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /** Where Patroni reaches it ({@code host:port}). */
    String clientAddress() {
        return "127.0.0.1:" + clientPort;
    }

    @Override
    public void close() {
        etcd.destroyForcibly();
        try {
            etcd.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
