package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * The demo's producer: a steady stream of the {@link DemoHandlers} kinds at a given rate, from
 * several tenants, with now and then one tenant enqueueing a burst of hundreds of jobs at once.
 * The mix: fast thumbnails, emails, flaky CRM syncs (some with a unique key, so repeats merge),
 * card charges (a few declined for good), webhooks (some to an endpoint that never answers), slow
 * reports, and reminders scheduled minutes ahead.
 */
final class DemoTraffic implements AutoCloseable {

    private static final String[] TENANTS = {"acme", "globex", "initech", "umbrella", "hooli"};
    private static final Duration TICK = Duration.ofMillis(200);

    private final Docket docket;
    private final double jobsPerSecond;
    private final DemoLog log;
    private final RandomGenerator random;
    private volatile boolean running = true;
    private Thread thread;
    private long sequence;

    DemoTraffic(Docket docket, double jobsPerSecond, DemoLog log, RandomGenerator random) {
        this.docket = docket;
        this.jobsPerSecond = jobsPerSecond;
        this.log = log;
        this.random = random;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("docket-demo-producer").start(this::run);
    }

    private void run() {
        double owed = 0;
        long nextBurst = System.nanoTime() + seconds(20, 40);
        while (running) {
            long tickStart = System.nanoTime();
            try {
                owed += jobsPerSecond * TICK.toMillis() / 1000.0;
                int n = (int) owed;
                owed -= n;
                List<NewJob> jobs = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    jobs.add(next());
                }
                if (tickStart - nextBurst > 0) {
                    jobs.addAll(burst());
                    nextBurst = tickStart + seconds(40, 90);
                }
                if (!jobs.isEmpty()) {
                    docket.enqueueAll(jobs);
                }
            } catch (RuntimeException e) {
                log.line("[demo] enqueue failed: " + ErrorMessages.oneLine(e.getMessage()));
            }
            long left = TICK.toNanos() - (System.nanoTime() - tickStart);
            if (left > 0) {
                try {
                    Thread.sleep(Duration.ofNanos(left));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /** One job of the steady mix. */
    NewJob next() {
        long n = ++sequence;
        String tenant = TENANTS[weightedTenant()];
        JobOptions.Builder o = JobOptions.builder().tenant(tenant);
        int roll = random.nextInt(100);
        if (roll < 44) {
            return NewJob.of("thumbnail", new DemoHandlers.Thumbnail("img-" + n, random.nextInt(100) == 0 ? 0 : 320),
                    o.build());
        } else if (roll < 62) {
            return NewJob.of("send_email", new DemoHandlers.Email("user" + n + "@" + tenant + ".example", "welcome"),
                    o.queue("email").build());
        } else if (roll < 74) {
            int account = random.nextInt(400);
            int failures = random.nextInt(100) < 55 ? 0 : 1 + random.nextInt(3);
            return NewJob.of("sync_crm", new DemoHandlers.CrmSync("acct-" + account, failures),
                    o.uniqueKey("crm:" + tenant + ":" + account).build());
        } else if (roll < 82) {
            return NewJob.of("charge_card", new DemoHandlers.Charge("order-" + n, 500 + random.nextInt(20_000),
                    random.nextInt(100) >= 8), o.priority(-10).build());
        } else if (roll < 91) {
            String endpoint = random.nextInt(100) < 12 ? DemoHandlers.DEAD_ENDPOINT
                    : "https://hooks." + tenant + ".example/events";
            return NewJob.of("deliver_webhook", new DemoHandlers.Webhook(endpoint, "order.paid"), o.build());
        } else if (roll < 94) {
            return NewJob.of("generate_report", new DemoHandlers.Report("report-" + n, 3 + random.nextInt(18)),
                    o.queue("reports").priority(10).build());
        } else {
            return NewJob.of("send_email", new DemoHandlers.Email("user" + n + "@" + tenant + ".example", "reminder"),
                    o.queue("email").delay(Duration.ofSeconds(15 + random.nextInt(165))).build());
        }
    }

    /** One tenant floods the default queue with thumbnails. */
    List<NewJob> burst() {
        String tenant = TENANTS[random.nextInt(TENANTS.length)];
        int size = 200 + random.nextInt(400);
        List<NewJob> jobs = new ArrayList<>(size);
        JobOptions options = JobOptions.builder().tenant(tenant).build();
        for (int i = 0; i < size; i++) {
            jobs.add(NewJob.of("thumbnail", new DemoHandlers.Thumbnail("bulk-" + (++sequence), 160), options));
        }
        log.line(String.format(Locale.ROOT, "[demo] tenant %s bursts: %d thumbnail jobs at once", tenant, size));
        return jobs;
    }

    private int weightedTenant() {
        int roll = random.nextInt(100);
        return roll < 35 ? 0 : roll < 60 ? 1 : roll < 78 ? 2 : roll < 92 ? 3 : 4;
    }

    private long seconds(int min, int max) {
        return Duration.ofSeconds(min + random.nextInt(max - min + 1)).toNanos();
    }

    @Override
    public void close() {
        running = false;
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
