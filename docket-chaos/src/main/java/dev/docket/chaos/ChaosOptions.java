package dev.docket.chaos;

import java.time.Duration;

/** What one chaos run does, read from its command line ({@code --help}). */
record ChaosOptions(int jobs, int workers, int concurrency, Duration killEvery, boolean zombie, boolean restartDb,
                    Duration lease, Duration duration, int poison, Duration timeout) {

    static ChaosOptions parse(String[] args) {
        int jobs = 20_000;
        int workers = 4;
        int concurrency = 8;
        Duration killEvery = Duration.ofSeconds(3);
        boolean zombie = true;
        boolean restart = true;
        Duration lease = Duration.ofSeconds(5);
        Duration duration = Duration.ofSeconds(60);
        int poison = 3;
        Duration timeout = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--jobs" -> jobs = positiveInt(args, ++i);
                case "--workers" -> workers = positiveInt(args, ++i);
                case "--concurrency" -> concurrency = positiveInt(args, ++i);
                case "--kill-every" -> killEvery = seconds(args, ++i);
                case "--lease" -> lease = seconds(args, ++i);
                case "--duration" -> duration = seconds(args, ++i);
                case "--timeout" -> timeout = seconds(args, ++i);
                case "--poison" -> poison = Integer.parseInt(value(args, ++i));
                case "--no-zombie" -> zombie = false;
                case "--no-restart" -> restart = false;
                case "-h", "--help" -> {
                    System.out.println("""
                            usage: bin/chaos [options]
                              --jobs N          jobs to enqueue over the run (default 20000)
                              --workers N       worker processes alive at once (default 4)
                              --concurrency N   jobs at once per worker (default 8)
                              --kill-every SEC  SIGKILL a random worker this often (default 3)
                              --duration SEC    spread the enqueues over this long (default 60)
                              --lease SEC       worker lease (default 5)
                              --poison N        jobs that halt their JVM, max 3 attempts (default 3)
                              --timeout SEC     give up waiting for the queue to drain (default duration + 120)
                              --no-zombie       do not SIGSTOP a worker for longer than its lease
                              --no-restart      do not restart PostgreSQL""");
                    System.exit(0);
                }
                default -> usage("unknown option " + a);
            }
        }
        return new ChaosOptions(jobs, workers, concurrency, killEvery, zombie, restart, lease, duration, poison,
                timeout != null ? timeout : duration.plusSeconds(120));
    }

    private static Duration seconds(String[] args, int i) {
        return Duration.ofMillis(Math.round(Double.parseDouble(value(args, i)) * 1000));
    }

    private static int positiveInt(String[] args, int i) {
        int n = Integer.parseInt(value(args, i));
        if (n < 1) {
            usage(args[i - 1] + " must be positive");
        }
        return n;
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            usage(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static void usage(String message) {
        System.err.println("chaos: " + message + " (try --help)");
        System.exit(2);
    }
}
