package dev.docket.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The worker JVMs of a chaos run: starts them (on the chaos hosts in turn, when there are any),
 * kills, stalls and replaces them, and remembers what was done to whom, so that the check can tell
 * an explained duplicate execution from an unexplained one.
 */
final class WorkerFleet {

    private final ChaosOptions o;
    private final ChaosDatabase database;
    private final DataSource harness;
    private final Path runDir;
    private final Random random = new Random();
    private final Map<String, Process> workers = new HashMap<>();
    private final Map<String, Integer> hostOf = new HashMap<>();
    private final Map<String, String> disturbance = new HashMap<>();
    private final List<Loss> losses = new ArrayList<>();
    private int nextWorker = 1;
    private int sparedHost = -1;
    private String resumedZombie;
    private long zombieSparedUntil;
    private int leadersKilled;
    private List<String> resuming = List.of();
    private long resumingSparedUntil;

    WorkerFleet(ChaosOptions options, ChaosDatabase database, DataSource harness, Path runDir) {
        this.o = options;
        this.database = database;
        this.harness = harness;
        this.runDir = runDir;
    }

    void start() throws IOException {
        String name = "w" + nextWorker++;
        int host = o.hosts() == 0 ? 0 : leastBusyHost();
        String address = host == 0 ? "127.0.0.1" : HostNetwork.databaseAddress(host);
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(host == 0 ? List.of() : HostNetwork.runOn(host));
        // A replacement JVM starts every few seconds on two cores: C1-only JIT and the serial collector keep
        // each start from starving the others (and PostgreSQL) of CPU, which would distort the timings measured.
        command.addAll(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), ChaosWorker.class.getName(),
                database.workerUrl(address), name, Long.toString(o.lease().toMillis()), Integer.toString(o.concurrency()),
                Long.toString(o.networkTimeout().toMillis()), Integer.toString(host)));
        String listener = database.listenerUrl(address);
        if (listener != null) {
            command.add(listener);
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(runDir.resolve(name + ".log").toFile()).start();
        workers.put(name, p);
        hostOf.put(name, host);
    }

    /** The host with the fewest live workers (the lowest first): a replacement takes its predecessor's place. */
    private int leastBusyHost() {
        int best = 1;
        for (int h = 2; h <= o.hosts(); h++) {
            if (live(h) < live(best)) {
                best = h;
            }
        }
        return best;
    }

    private long live(int host) {
        return workers.entrySet().stream().filter(e -> e.getValue().isAlive() && hostOf.get(e.getKey()) == host).count();
    }

    /**
     * Kills spare the workers of {@code host}: the host to be cut must be running warm workers that
     * hold jobs when it is cut, not replacements still starting (the cut disturbs them enough).
     */
    void spare(int host) {
        sparedHost = host;
    }

    /**
     * Kills spare {@code workers} for {@code bound} from now: the workers that lived through a database
     * disruption must live until they could resume, or the check that they resumed without a restart has
     * nobody left to check (a kill every few seconds takes them all during a failover of ten).
     */
    void spareResuming(List<String> workers, Duration bound) {
        resuming = List.copyOf(workers);
        resumingSparedUntil = System.nanoTime() + bound.toNanos();
    }

    /** The workers alive now. */
    List<String> alive() {
        return workers.entrySet().stream().filter(e -> e.getValue().isAlive()).map(Map.Entry::getKey).sorted().toList();
    }

    List<String> onHost(int host) {
        return workers.keySet().stream().filter(w -> hostOf.get(w) == host).sorted().toList();
    }

    /** A worker that exited by itself (a poison job halted it) is replaced, and its jobs' duplicates are explained. */
    void replaceCrashed() throws IOException {
        for (Map.Entry<String, Process> e : List.copyOf(workers.entrySet())) {
            if (!e.getValue().isAlive()) {
                workers.remove(e.getKey());
                explain(e.getKey(), "crashed (exit " + e.getValue().exitValue() + ")");
                start();
            }
        }
    }

    /** Kills a random worker among those holding jobs (a worker still starting up proves nothing). */
    void killOne() throws Exception {
        // The zombie just resumed is spared for a lease: killed as it wakes (the kill that fell due during its
        // stall runs at once), its stalled handlers never reach the commits that its fence must refuse.
        long now = System.nanoTime();
        List<String> alive = alive().stream().filter(w -> hostOf.get(w) != sparedHost)
                .filter(w -> !(w.equals(resumedZombie) && now < zombieSparedUntil))
                .filter(w -> !(resuming.contains(w) && now < resumingSparedUntil)).toList();
        if (alive.isEmpty()) {
            return;
        }
        kill(busyOne(alive), "");
    }

    /**
     * Kills the maintenance leader, whatever it holds: the run-time schedule's slots must then be enqueued by the
     * next leader, once each. Returns false when no live worker holds the lease now (an election in progress).
     */
    boolean killLeader() throws Exception {
        List<String> leader = Sql.retrying(() -> Sql.strings(harness, "SELECT leader_id FROM " + ChaosHarness.SCHEMA
                + ".leaders WHERE role = 'maintainer' AND expires_at > now()"));
        if (leader.isEmpty() || !workers.containsKey(leader.getFirst()) || !workers.get(leader.getFirst()).isAlive()) {
            return false;
        }
        kill(leader.getFirst(), " (the maintenance leader)");
        leadersKilled++;
        return true;
    }

    /** How many maintenance leaders {@link #killLeader} killed. */
    int leadersKilled() {
        return leadersKilled;
    }

    private void kill(String victim, String note) throws Exception {
        // The database clock just before the signal: the measured time to re-claim can only be longer than the true one.
        Instant at = Sql.retrying(() -> Sql.now(harness));
        Process p = workers.remove(victim);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
        explain(victim, "killed");
        Map<Long, Integer> held = Sql.retrying(() -> heldBy(List.of(victim)));
        losses.add(new Loss("SIGKILL " + victim, at, held));
        System.out.printf(Locale.ROOT, "chaos: SIGKILL %s%s holding %d jobs at %s%n", victim, note, held.size(), at);
        start();
    }

    /** A random worker among {@code alive} that holds jobs, or among all of them when none does. */
    private String busyOne(List<String> alive) throws Exception {
        List<String> busy = busy(alive);
        List<String> candidates = busy.isEmpty() ? alive : busy;
        return candidates.get(random.nextInt(candidates.size()));
    }

    /** Those of {@code alive} that hold jobs now, sorted. */
    private List<String> busy(List<String> alive) throws Exception {
        return Sql.retrying(() -> {
            List<String> found = new ArrayList<>();
            try (Connection c = harness.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT DISTINCT locked_by FROM " + ChaosHarness.SCHEMA
                         + ".jobs WHERE state = 'running'")) {
                while (rs.next()) {
                    if (alive.contains(rs.getString(1))) {
                        found.add(rs.getString(1));
                    }
                }
            }
            return found.stream().sorted().toList();
        });
    }

    /** The jobs (and their attempts) that {@code owners} hold now. */
    Map<Long, Integer> heldBy(List<String> owners) throws SQLException {
        Map<Long, Integer> found = new HashMap<>();
        try (Connection c = harness.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT id, attempt FROM " + ChaosHarness.SCHEMA + ".jobs WHERE locked_by = ANY (?) AND state = 'running'")) {
            ps.setArray(1, c.createArrayOf("text", owners.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    found.put(rs.getLong(1), rs.getInt(2));
                }
            }
        }
        return found;
    }

    /** Records that {@code what} took the leases of {@code held} at {@code at}: the check measures their re-claim. */
    void lost(String what, Instant at, Map<Long, Integer> held) {
        losses.add(new Loss(what, at, held));
    }

    /**
     * SIGSTOPs a random worker holding jobs (its handlers mid-run) for longer than its lease, then SIGCONTs
     * it: a zombie that must be fenced out.
     */
    void zombie() throws Exception {
        List<String> alive = alive();
        if (alive.isEmpty()) {
            return;
        }
        // Workers still starting hold nothing to fence out: wait a little for one that does.
        long patience = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (busy(alive).isEmpty() && System.nanoTime() < patience) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        String victim = busyOne(alive);
        long pid = workers.get(victim).pid();
        Duration stall = o.lease().multipliedBy(2).plusSeconds(1);
        System.out.printf(Locale.ROOT, "chaos: SIGSTOP %s for %s (longer than its lease)%n", victim, stall);
        signal("STOP", pid);
        explain(victim, "stalled (SIGSTOP)");
        long until = System.nanoTime() + stall.toNanos();
        while (System.nanoTime() < until) {
            replaceCrashed();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        signal("CONT", pid);
        resumedZombie = victim;
        zombieSparedUntil = System.nanoTime() + o.lease().toNanos();
        System.out.printf(Locale.ROOT, "chaos: SIGCONT %s%n", victim);
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
        }
    }

    void explain(String worker, String what) {
        disturbance.merge(worker, what, (a, b) -> a + ", " + b);
    }

    /** What was done to {@code worker}, or null if nothing. */
    String disturbance(String worker) {
        return disturbance.get(worker);
    }

    List<Loss> losses() {
        return losses;
    }

    void stop() throws InterruptedException {
        for (Process p : workers.values()) {
            p.destroy();
        }
        for (Process p : workers.values()) {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    void destroy() {
        workers.values().forEach(Process::destroyForcibly);
    }

    /**
     * Leases taken from a worker (SIGKILL) or a host (network cut): when (database clock, taken before
     * the disturbance) and the attempts held; the check finds when each job was claimed again.
     */
    record Loss(String what, Instant at, Map<Long, Integer> held) {
    }
}
