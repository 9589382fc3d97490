package dev.docket.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Worker hosts as network namespaces on this machine: host {@code i} is the namespace
 * {@code docket-h<i>}, joined to the root namespace (where PostgreSQL runs) by a veth pair,
 * {@code 10.231.<i>.1} on the root side and {@code 10.231.<i>.2} inside. {@link #cut(int)} takes the
 * root side of the link down: the host's packets are dropped without a reset, so its open TCP
 * connections to the database hang half-open until timeouts notice; {@link #heal(int)} brings it
 * back. Needs root and {@code ip} (iproute2).
 */
final class HostNetwork implements AutoCloseable {

    /** The addresses of every chaos host, for PostgreSQL's pg_hba.conf. */
    static final String SUBNET = "10.231.0.0/16";

    private final int hosts;
    private final List<String> created = new ArrayList<>();

    HostNetwork(int hosts) throws IOException, InterruptedException {
        this.hosts = hosts;
        for (int i = 1; i <= hosts; i++) {
            String ns = namespace(i);
            // A namespace left by a run that was killed would make "add" fail.
            ip(false, "netns", "del", ns);
            ip(false, "link", "del", rootLink(i));
            ip(true, "netns", "add", ns);
            created.add(ns);
            ip(true, "link", "add", rootLink(i), "type", "veth", "peer", "name", "eth-" + i);
            ip(true, "link", "set", "eth-" + i, "netns", ns);
            ip(true, "addr", "add", "10.231." + i + ".1/24", "dev", rootLink(i));
            ip(true, "link", "set", rootLink(i), "up");
            ip(true, "-n", ns, "addr", "add", "10.231." + i + ".2/24", "dev", "eth-" + i);
            ip(true, "-n", ns, "link", "set", "eth-" + i, "up");
            ip(true, "-n", ns, "link", "set", "lo", "up");
        }
        System.out.printf(Locale.ROOT, "chaos: %d worker hosts as network namespaces docket-h1..docket-h%d%n", hosts, hosts);
    }

    int hosts() {
        return hosts;
    }

    /** The database server's address as host {@code i} reaches it. */
    static String databaseAddress(int host) {
        return "10.231." + host + ".1";
    }

    /** The command prefix that runs a process on host {@code i}. */
    static List<String> runOn(int host) {
        return List.of("ip", "netns", "exec", namespace(host));
    }

    void cut(int host) throws IOException, InterruptedException {
        ip(true, "link", "set", rootLink(host), "down");
    }

    void heal(int host) throws IOException, InterruptedException {
        ip(true, "link", "set", rootLink(host), "up");
    }

    private static String namespace(int host) {
        return "docket-h" + host;
    }

    private static String rootLink(int host) {
        return "dkt-h" + host;
    }

    private static void ip(boolean check, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0 && check) {
            throw new IOException(String.join(" ", command) + " failed: " + output.strip());
        }
    }

    @Override
    public void close() {
        for (int i = 1; i <= created.size(); i++) {
            try {
                ip(false, "link", "del", rootLink(i));
                ip(false, "netns", "del", namespace(i));
            } catch (IOException | InterruptedException e) {
                System.out.println("chaos: removing host " + i + ": " + e.getMessage());
            }
        }
    }
}
