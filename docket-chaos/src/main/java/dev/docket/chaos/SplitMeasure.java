package dev.docket.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.DocketRouter;
import dev.docket.JobKind;
import dev.docket.KindDefaults;
import dev.docket.RoutedWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Measures what splitting queues across two PostgreSQL servers gives against one, for the same
 * workload on this machine: two queues, one producer thread per queue enqueueing in batches, each
 * queue worked at the same concurrency, no-op handlers, durable commits ({@code synchronous_commit =
 * on}). Both runs go through a {@link DocketRouter}, as an application would: with one server both
 * queues are routed to its database; with two, each queue to a server of its own. Producers enqueue
 * through the router, and the workers are the router's (one per database, from one declaration, with
 * no outbox queue, so both runs serve the same queues). After a shorter warm-up run, prints jobs/s end
 * to end for each, one after the other.
 *
 * <pre>bin/chaos split [--jobs N]   (default 60000)</pre>
 */
public final class SplitMeasure {

    private static final List<String> QUEUES = List.of("a", "b");
    private static final List<JobKind<Integer>> KINDS = QUEUES.stream().map(q -> JobKind.of("noop_" + q, Integer.class)
            .defaults(KindDefaults.builder().queue(q).build()).build()).toList();
    private static final int BATCH = 500;
    private static final int CONCURRENCY = 16;

    private SplitMeasure() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = 60_000;
        if (args.length == 2 && args[0].equals("--jobs") && args[1].matches("[1-9][0-9]{0,7}")) {
            jobs = Integer.parseInt(args[1]);
        } else if (args.length != 0) {
            System.err.println("usage: bin/chaos split [--jobs N]   (N from 1 to 99999999, default 60000)");
            System.exit(2);
        }
        // The chaos logging names every leader change; here only warnings matter.
        System.setProperty("org.slf4j.simpleLogger.log.dev.docket.internal.leader", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.dev.docket.internal.maintenance.Maintainer", "warn");
        Path runDir = Files.createTempDirectory("docket-split-");
        System.out.printf(Locale.ROOT, "split: %,d no-op jobs over queues %s, %d cores; logs in %s%n", jobs, QUEUES,
                Runtime.getRuntime().availableProcessors(), runDir);
        // A first, shorter run warms the JIT up, so that the first measured run is not the colder one.
        run(runDir.resolve("warm-up"), 1, Math.max(1_000, jobs / 4));
        double one = run(runDir.resolve("one"), 1, jobs);
        double two = run(runDir.resolve("two"), 2, jobs);
        System.out.printf(Locale.ROOT, "split: one server %,.0f jobs/s, two servers %,.0f jobs/s (x%.2f)%n", one, two,
                two / one);
    }

    /** Runs the workload on {@code servers} servers (queue i on server i mod servers); returns jobs/s. */
    private static double run(Path dir, int servers, int jobs) throws Exception {
        List<SingleServer> started = new ArrayList<>();
        List<HikariDataSource> pools = new ArrayList<>();
        List<Docket> dockets = new ArrayList<>();
        List<RoutedWorkers> workers = new ArrayList<>();
        try {
            for (int s = 0; s < servers; s++) {
                SingleServer server = new SingleServer(dir.resolve("pg" + s), Map.of("synchronous_commit", "on"));
                started.add(server);
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(server.harnessUrl());
                config.setUsername("postgres");
                config.setMaximumPoolSize(CONCURRENCY * QUEUES.size() / servers + 12);
                HikariDataSource pool = new HikariDataSource(config);
                pools.add(pool);
                Docket docket = Docket.builder(pool).build();
                docket.migrate();
                dockets.add(docket);
            }
            DocketRouter.Builder routes = DocketRouter.builder();
            for (int s = 0; s < servers; s++) {
                routes.database("pg" + s, dockets.get(s));
            }
            for (int q = 0; q < QUEUES.size(); q++) {
                routes.route("pg" + (q % servers), KINDS.get(q));
            }
            DocketRouter router = routes.build();
            int perQueue = jobs / QUEUES.size();
            CountDownLatch done = new CountDownLatch(perQueue * QUEUES.size());
            RoutedWorkers.Builder w = router.worker().outboxConcurrency(0);
            for (int q = 0; q < QUEUES.size(); q++) {
                w.queue(QUEUES.get(q), CONCURRENCY).handler(KINDS.get(q), (n, ctx) -> done.countDown());
            }
            workers.add(w.start());
            long start = System.nanoTime();
            List<Thread> producers = new ArrayList<>();
            for (int q = 0; q < QUEUES.size(); q++) {
                JobKind<Integer> kind = KINDS.get(q);
                producers.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perQueue; i += BATCH) {
                        List<Integer> batch = new ArrayList<>();
                        for (int j = i; j < Math.min(perQueue, i + BATCH); j++) {
                            batch.add(j);
                        }
                        router.enqueueAll(kind, batch);
                    }
                }));
            }
            for (Thread t : producers) {
                t.join();
            }
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the jobs did not all run within 10 minutes");
            }
            double rate = perQueue * QUEUES.size() / ((System.nanoTime() - start) / 1e9);
            System.out.printf(Locale.ROOT, "split: %d server(s), queues routed %s: %,.0f jobs/s end to end%n", servers,
                    router.routes(), rate);
            return rate;
        } finally {
            workers.forEach(RoutedWorkers::close);
            dockets.forEach(Docket::close);
            pools.forEach(HikariDataSource::close);
            started.forEach(SingleServer::close);
        }
    }
}
