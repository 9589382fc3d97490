package dev.docket.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** What one benchmark run measures and where it writes, read from its command line ({@link #HELP}). */
record BenchOptions(List<String> systems, List<String> scenarios, int jobs, int reps, int warmups, boolean quick,
                    String synchronousCommit, Path out, String databaseUrl, List<Integer> concurrencies,
                    int pickupJobs, Duration singleDuration, Duration steadyDuration, Duration soakDuration,
                    int producers, List<Integer> processes, List<String> configs) {

    static final List<String> ALL_SYSTEMS = List.of("docket", "raw", "db-scheduler", "jobrunr", "graphile-worker",
            "pg-boss");
    static final List<String> ALL_SCENARIOS = List.of("bulk", "single", "drain", "steady", "pickup", "scaleout",
            "soak", "fairness", "txhandler", "sequences", "ratelimit", "signals");
    static final List<String> DEFAULT_SCENARIOS = List.of("bulk", "single", "drain", "steady", "pickup", "scaleout");

    static BenchOptions parse(String[] args) {
        List<String> systems = ALL_SYSTEMS;
        List<String> scenarios = DEFAULT_SCENARIOS;
        Integer jobs = null;
        Integer reps = null;
        Integer warmups = null;
        boolean quick = false;
        String sc = "on";
        Path out = Path.of("bench-results");
        String url = null;
        List<Integer> conc = List.of(8, 64);
        Duration soak = null;
        List<Integer> processes = List.of(1, 2, 4);
        List<String> configs = List.of();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--systems" -> systems = List.of(value(args, ++i, a).split(","));
                case "--scenarios" -> scenarios = List.of(value(args, ++i, a).split(","));
                case "--jobs" -> jobs = count(a, value(args, ++i, a).replace("_", ""), 1, 100_000_000);
                case "--reps" -> reps = count(a, value(args, ++i, a), 1, 100);
                case "--warmup" -> warmups = count(a, value(args, ++i, a), 0, 100);
                case "--short" -> quick = true;
                case "--synchronous-commit" -> sc = value(args, ++i, a);
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--database-url" -> url = value(args, ++i, a);
                case "--concurrency" -> conc = positiveInts(a, value(args, ++i, a));
                case "--processes" -> processes = positiveInts(a, value(args, ++i, a));
                case "--configs" -> configs = List.of(value(args, ++i, a).split(","));
                case "--soak-duration" -> soak = duration(a, value(args, ++i, a));
                case "--help", "-h" -> {
                    System.out.println(HELP);
                    System.exit(0);
                }
                default -> {
                    System.err.println("unknown option " + a + "\n" + HELP);
                    System.exit(Bench.EXIT_BAD_OPTIONS);
                }
            }
        }
        if (!sc.equals("on") && !sc.equals("off")) {
            throw new IllegalArgumentException("--synchronous-commit must be on or off");
        }
        for (String s : systems) {
            if (!ALL_SYSTEMS.contains(s)) {
                throw new IllegalArgumentException("unknown system " + s + "; known: " + ALL_SYSTEMS);
            }
        }
        for (String s : scenarios) {
            if (!ALL_SCENARIOS.contains(s)) {
                throw new IllegalArgumentException("unknown scenario " + s + "; known: " + ALL_SCENARIOS);
            }
        }
        return new BenchOptions(systems, scenarios, jobs != null ? jobs : quick ? 5_000 : 100_000,
                reps != null ? reps : quick ? 1 : 3, warmups != null ? warmups : quick ? 0 : 2, quick, sc, out, url,
                conc, quick ? 50 : 500,
                Duration.ofSeconds(quick ? 2 : 10), Duration.ofSeconds(quick ? 3 : 30),
                soak != null ? soak : Duration.ofSeconds(quick ? 5 : 600), 4, processes, configs);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int count(String option, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n < min || n > max) {
                throw new IllegalArgumentException(option + " must be " + min + ".." + max + ", was " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a number, was " + value);
        }
    }

    private static Duration duration(String option, String value) {
        try {
            Duration d = Duration.parse("PT" + value.toUpperCase(Locale.ROOT));
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(option + " must be positive, was " + value);
            }
            return d;
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(option + " takes a duration such as 10m or 90s, was " + value);
        }
    }

    private static List<Integer> positiveInts(String option, String list) {
        try {
            List<Integer> values = Arrays.stream(list.split(",")).map(String::trim).map(Integer::valueOf).toList();
            if (values.stream().anyMatch(v -> v < 1 || v > 1024)) {
                throw new IllegalArgumentException(option + " values must be 1..1024, was " + list);
            }
            return values;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a comma-separated list of numbers, was " + list);
        }
    }

    static final String HELP = """
            Usage: bin/bench [options]   (or: docket bench [options])
              --systems LIST            docket,raw,db-scheduler,jobrunr,graphile-worker,pg-boss (default: all;
                                 the last two run on Node 22, which bin/bench installs with npm)
              --scenarios LIST          bulk,single,drain,steady,pickup,scaleout,soak,fairness,txhandler,
                                 sequences,ratelimit,signals (default: all but soak, fairness, txhandler,
                                 sequences, ratelimit and signals)
              --jobs N                  jobs for bulk and drain (default 100000; 5000 with --short)
              --reps N                  repetitions, the median is reported (default 3; 1 with --short)
              --warmup N                untimed runs of each configuration before its timed ones, in bulk,
                                 single, drain, txhandler and pickup, for every system, after an untimed
                                 5,000-job drain of each system before its first measurement (default 2;
                                 0 with --short, and no system drain either): a fresh JVM's first two
                                 drains run at about half the later ones' speed, on a warm server too
              --concurrency LIST        worker concurrencies for drain and scaleout (default 8,64)
              --processes LIST          worker JVMs for scaleout (default 1,2,4)
              --configs LIST            only these configurations of each system, e.g. default or delete
                                 for Docket's history kept or not; raw's drain: B=10, B=100, B=1000
                                 (claim batch sizes of the textbook loop) and at B=100 B=100-cte (claim
                                 through a materialized CTE), B=100-id (ORDER BY run_at, id), B=100-done
                                 (finish by UPDATE state = 'done', not DELETE) (default: every
                                 configuration but Docket's async, asyncCommit(true), measured only when
                                 named)
              --soak-duration D         soak length, e.g. 10m, 90s (default 10m; 5s with --short)
              --short                   a few seconds per scenario, for CI (no speed assertions)
              --synchronous-commit on|off   (default on)
              --database-url URL        a PostgreSQL to use instead of the embedded 18 (needs CREATEDB;
                                 user and password as URL parameters)
              --out DIR                 where results.md, results.json and chart.svg go (default bench-results)
            Scenarios: bulk = enqueue N jobs in chunks of 1,000 (raw: one COPY each); single = one job per
            transaction from 4 producers; drain = N pre-enqueued no-op jobs, jobs/s from the first handler
            start until the last job is durably finished (starts counted in the benchmark, the live table
            polled only once all N have started), and the longest gap between handler starts; steady =
            producers at 70% of the drain rate measured before; pickup = single jobs 20 ms apart on an idle
            queue, enqueue commit to handler start; scaleout (Docket only) = N pre-enqueued jobs drained by P
            worker JVMs of each concurrency; soak = half the drain rate for --soak-duration; fairness
            (Docket only) = a flood of 2 x N jobs by one tenant, 1,000 of another behind it, with a tenant cap
            of 4 and without: when the calm tenant's last job started, and how many flood jobs ran first;
            txhandler (Docket only) = the drain at concurrency 8 with ordinary no-op handlers and with
            transactional handlers that insert one row on their transaction (completion in the same one);
            sequences (Docket only) = N no-op jobs over 100 sequence keys and without keys: enqueue rows/s
            and drain jobs/s at c=8;
            ratelimit (Docket only) = N jobs of a free kind behind N/2 of a kind limited to 1,000 starts/s, in
            one queue, with the limit and without: free jobs/s, limited starts/s, and the claim's mean time;
            signals (Docket only) = N jobs waiting for a signal, declared at enqueue or asked for by their
            handler, each then sent its signal (own transaction, 4 senders) while a worker of concurrency 8
            runs them: signals/s, resumed jobs/s from the first signal to the last completion, enqueue rows/s.
            Exit status: 0 when every measurement succeeded and no drain of Docket stalled;
            1 when a measurement failed (its row says why); 2 for a bad command line; 3 when a drain of Docket
            stalled: no handler started for longer than max(100 ms, 5 x the drain's median gap between
            starts) while jobs were ready (its row is marked "⚠ stall"; a liveness check, not a speed
            assertion). A peer's stall is marked in its row alike and does not change the status.""";
}
