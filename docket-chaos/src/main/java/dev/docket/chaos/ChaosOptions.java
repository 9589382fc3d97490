package dev.docket.chaos;

import java.time.Duration;
import java.util.Locale;

/** What one chaos run does, read from its command line ({@code --help}). */
record ChaosOptions(Scenario scenario, int jobs, int workers, int concurrency, Duration killEvery, boolean zombie,
                    boolean disrupt, Duration lease, Duration duration, int poison, Duration timeout, int hosts,
                    Duration networkTimeout, int txShare, int signalShare, PatroniTimings patroni) {

    /** The deployments a run can stand for; each ends with the same checks. */
    enum Scenario {
        /** One PostgreSQL, restarted once mid-run. */
        CLASSIC("classic"),
        /** A primary and a synchronous standby; the primary is killed and the standby promoted mid-run. */
        FAILOVER_SYNC("failover-sync"),
        /** As failover-sync with asynchronous replication: what a failover loses is measured, not refused. */
        FAILOVER_ASYNC("failover-async"),
        /** Workers on several network namespaces; one is cut off for longer than its lease, then healed. */
        PARTITION("partition"),
        /** Workers and producer through PgBouncer in transaction pooling mode; PostgreSQL restarted behind it. */
        PGBOUNCER("pgbouncer"),
        /**
         * Two nodes managed by Patroni (etcd as its store, synchronous mode): a planned switchover, then the
         * primary's PostgreSQL and Patroni killed, and Patroni's failover.
         */
        PATRONI("patroni");

        final String label;

        Scenario(String label) {
            this.label = label;
        }

        static Scenario of(String label) {
            for (Scenario s : values()) {
                if (s.label.equals(label)) {
                    return s;
                }
            }
            usage("unknown scenario '" + label + "'");
            return null;
        }

    }

    /** How long the partitioned host is cut off, and how long a zombie is stopped: longer than a lease. */
    Duration outage() {
        return lease.multipliedBy(2).plusSeconds(1);
    }

    /**
     * Jobs slow on the host to be cut, enqueued just before the cut, enough to fill every slot: elsewhere
     * they finish at once, so the host's slots fill with them and it still runs some when it heals.
     * None unless partition.
     */
    int longJobs() {
        return scenario == Scenario.PARTITION ? workers * concurrency : 0;
    }

    /** Long enough to still run when the cut host heals, and then some. */
    Duration longJobWork() {
        return lease.multipliedBy(3).plus(outage());
    }

    static ChaosOptions parse(String[] args) {
        Scenario scenario = Scenario.CLASSIC;
        int jobs = 20_000;
        int workers = 4;
        int concurrency = 8;
        Duration killEvery = Duration.ofSeconds(3);
        boolean zombie = true;
        boolean disrupt = true;
        Duration lease = Duration.ofSeconds(5);
        Duration duration = Duration.ofSeconds(60);
        int poison = 3;
        Duration timeout = null;
        int hosts = -1;
        Duration networkTimeout = null;
        int txShare = 25;
        int signalShare = 5;
        PatroniTimings d = PatroniTimings.DEFAULT;
        int[] patroni = {d.ttl(), d.loopWait(), d.retryTimeout(), d.primaryStopTimeout()};
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--scenario" -> scenario = Scenario.of(value(args, ++i));
                case "--jobs" -> jobs = positiveInt(args, ++i);
                case "--workers" -> workers = positiveInt(args, ++i);
                case "--concurrency" -> concurrency = positiveInt(args, ++i);
                case "--kill-every" -> killEvery = seconds(args, ++i);
                case "--lease" -> lease = seconds(args, ++i);
                case "--duration" -> duration = seconds(args, ++i);
                case "--timeout" -> timeout = seconds(args, ++i);
                case "--network-timeout" -> networkTimeout = seconds(args, ++i);
                case "--hosts" -> hosts = positiveInt(args, ++i);
                case "--poison" -> poison = nonNegativeInt(args, ++i);
                case "--tx-share" -> txShare = nonNegativeInt(args, ++i);
                case "--signal-share" -> signalShare = nonNegativeInt(args, ++i);
                case "--patroni-ttl" -> patroni[0] = positiveInt(args, ++i);
                case "--patroni-loop-wait" -> patroni[1] = positiveInt(args, ++i);
                case "--patroni-retry-timeout" -> patroni[2] = positiveInt(args, ++i);
                case "--patroni-stop-timeout" -> patroni[3] = positiveInt(args, ++i);
                case "--no-zombie" -> zombie = false;
                case "--no-restart", "--no-disruption" -> disrupt = false;
                case "-h", "--help" -> {
                    System.out.println("""
                            usage: bin/chaos [options]
                              --scenario NAME   classic (default): one PostgreSQL, restarted mid-run
                                                failover-sync: primary + synchronous standby, primary killed, standby promoted
                                                failover-async: the same with asynchronous replication (losses measured)
                                                partition: worker hosts as network namespaces, one cut off longer than its lease
                                                pgbouncer: workers and producer through PgBouncer (transaction pooling)
                                                patroni: two nodes under Patroni and etcd (synchronous mode), a
                                                  switchover, then the primary's PostgreSQL and Patroni SIGKILLed
                              --jobs N          jobs to enqueue over the run (default 20000)
                              --workers N       worker processes alive at once (default 4)
                              --concurrency N   jobs at once per worker (default 8)
                              --kill-every SEC  SIGKILL a random worker this often (default 3)
                              --duration SEC    spread the enqueues over this long (default 60)
                              --lease SEC       worker lease (default 5)
                              --network-timeout SEC  workers' Docket networkTimeout (default: the lease)
                              --hosts N         worker hosts (network namespaces) for partition (default 2)
                              --poison N        jobs that halt their JVM, max 3 attempts (default 3)
                              --tx-share PCT    percent of the jobs run by a transactional handler that counts
                                                each job once in a counters table (default 25)
                              --signal-share PCT  percent more jobs that wait for two signals (sent in transactions
                                                half of which roll back), plus a quarter as many timers (default 5)
                              --timeout SEC     give up waiting for the queue to drain (default duration + 120)
                              --patroni-ttl SEC, --patroni-loop-wait SEC, --patroni-retry-timeout SEC,
                              --patroni-stop-timeout SEC  Patroni's ttl, loop_wait, retry_timeout and
                                                primary_stop_timeout for --scenario patroni (default 10, 2, 4, 10);
                                                the failover and switchover bounds are derived from them
                              --no-zombie       do not SIGSTOP a worker for longer than its lease
                              --no-disruption   no restart, failover or cut (alias --no-restart)""");
                    System.exit(0);
                }
                default -> usage("unknown option " + a);
            }
        }
        if (hosts == -1) {
            hosts = scenario == Scenario.PARTITION ? 2 : 0;
        } else if (scenario != Scenario.PARTITION) {
            usage("--hosts is for --scenario partition");
        }
        PatroniTimings timings = patroniTimings(patroni);
        if (!timings.equals(d) && scenario != Scenario.PATRONI) {
            usage("the --patroni-* options are for --scenario patroni");
        }
        if (txShare > 100) {
            usage("--tx-share is a percentage from 0 to 100, was " + txShare);
        }
        if (signalShare > 100) {
            usage("--signal-share is a percentage from 0 to 100, was " + signalShare);
        }
        if (scenario == Scenario.PARTITION && hosts < 2) {
            usage("a partition needs --hosts 2 or more (one is cut off, the others go on)");
        }
        return new ChaosOptions(scenario, jobs, workers, concurrency, killEvery, zombie, disrupt, lease, duration, poison,
                timeout != null ? timeout : duration.plusSeconds(120), hosts,
                networkTimeout != null ? networkTimeout : lease, txShare, signalShare, timings);
    }

    String describe() {
        return String.format(Locale.ROOT, "scenario %s: %,d jobs (%d%% transactional, +%d%% waiting for signals, +%d poison), "
                        + "%d workers x %d%s, kill every %s, zombie %s, %s, lease %s, network timeout %s", scenario.label, jobs,
                txShare, signalShare, poison, workers,
                concurrency, hosts > 0 ? " on " + hosts + " hosts" : "", killEvery, zombie ? "yes" : "no",
                disrupt ? "disruption yes" : "disruption no", lease, networkTimeout)
                + (scenario == Scenario.PATRONI ? ", Patroni " + patroni.describe() : "");
    }

    private static Duration seconds(String[] args, int i) {
        String v = value(args, i);
        try {
            double s = Double.parseDouble(v);
            if (!(s > 0) || s > 86_400) {
                usage(args[i - 1] + " must be more than 0 and at most 86400 seconds, was " + v);
            }
            return Duration.ofMillis(Math.round(s * 1000));
        } catch (NumberFormatException e) {
            usage(args[i - 1] + " needs a number of seconds, was " + v);
            return null;
        }
    }

    /** Patroni's timings as given ({@code ttl, loop_wait, retry_timeout, primary_stop_timeout}), or the rule they break. */
    private static PatroniTimings patroniTimings(int[] seconds) {
        try {
            return new PatroniTimings(seconds[0], seconds[1], seconds[2], seconds[3]);
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            return null;
        }
    }

    private static int positiveInt(String[] args, int i) {
        int n = nonNegativeInt(args, i);
        if (n < 1) {
            usage(args[i - 1] + " must be positive");
        }
        return n;
    }

    private static int nonNegativeInt(String[] args, int i) {
        String v = value(args, i);
        try {
            int n = Integer.parseInt(v);
            if (n < 0) {
                usage(args[i - 1] + " must not be negative, was " + v);
            }
            return n;
        } catch (NumberFormatException e) {
            usage(args[i - 1] + " needs a whole number, was " + v);
            return 0;
        }
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
