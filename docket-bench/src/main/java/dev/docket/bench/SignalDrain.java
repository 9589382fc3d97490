package dev.docket.bench;

import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.NewJob;
import dev.docket.SignalDelivery;
import dev.docket.Worker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The {@code signals} scenario (Docket only: the peers have no signals). N jobs wait for the signal {@code go},
 * declared at enqueue ({@link #AT_ENQUEUE}) or asked for by their handler's first run ({@link #IN_HANDLER});
 * once all of them wait, {@link #SENDERS} threads send one signal each, every signal in its own transaction,
 * while one worker of concurrency 8 runs the resumed jobs (their handler reads the signal's payload). Reported:
 * signals sent per second (each one resuming its job, in its transaction) and resumed jobs completed per second
 * (from the first signal to the last completion), with the enqueue's rows/s.
 */
final class SignalDrain {

    static final String AT_ENQUEUE = "at enqueue";
    static final String IN_HANDLER = "in handler";
    static final int SENDERS = 4;

    record Job(long n) {
    }

    record Go(long n) {
    }

    private SignalDrain() {
    }

    static Map<String, double[]> run(Docket docket, DataSource ds, int jobs, String config) throws Exception {
        boolean atEnqueue = config.equals(AT_ENQUEUE);
        JobOptions options = atEnqueue ? JobOptions.builder().awaitSignal("go").build() : JobOptions.defaults();
        List<Long> ids = new ArrayList<>(jobs);
        long enqueueStart = System.nanoTime();
        List<NewJob> batch = new ArrayList<>(Bench.CHUNK);
        for (int i = 0; i < jobs; i++) {
            batch.add(NewJob.of("job", new Job(i), options));
            if (batch.size() == Bench.CHUNK || i == jobs - 1) {
                ids.addAll(docket.enqueueAll(batch));
                batch.clear();
            }
        }
        double enqueueSeconds = (System.nanoTime() - enqueueStart) / 1e9;

        CountDownLatch done = new CountDownLatch(jobs);
        try (Worker ignored = docket.worker().queue("default", 8)
                .handler("job", Job.class, (job, ctx) -> {
                    if (ctx.signal("go", Go.class).isEmpty()) {
                        ctx.awaitSignal("go");
                        return;
                    }
                    done.countDown();
                })
                .start()) {
            awaitAllWaiting(ds, jobs);
            long sendStart = System.nanoTime();
            ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
            try {
                List<Future<?>> sent = new ArrayList<>();
                for (int s = 0; s < SENDERS; s++) {
                    int from = s;
                    sent.add(senders.submit(() -> {
                        for (int i = from; i < ids.size(); i += SENDERS) {
                            if (docket.signal(ids.get(i), "go", new Go(i)) != SignalDelivery.RESUMED) {
                                throw new IllegalStateException("job " + ids.get(i) + " was not waiting for its signal");
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : sent) {
                    f.get(10, TimeUnit.MINUTES);
                }
            } finally {
                senders.shutdownNow();
            }
            double sendSeconds = (System.nanoTime() - sendStart) / 1e9;
            if (!done.await(Duration.ofMinutes(10).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(done.getCount() + " of " + jobs + " resumed jobs left after 10 min");
            }
            double resumeSeconds = (System.nanoTime() - sendStart) / 1e9;
            Map<String, double[]> m = new LinkedHashMap<>();
            m.put("enqueue rows/s", new double[] {jobs / enqueueSeconds});
            m.put("signals/s", new double[] {jobs / sendSeconds});
            m.put("resumed jobs/s", new double[] {jobs / resumeSeconds});
            return m;
        }
    }

    /** Waits (polling every 50 ms: this is the harness, not the system measured) until every job waits. */
    private static void awaitAllWaiting(DataSource ds, int jobs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Connection c = ds.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*) FROM " + DocketSut.SCHEMA + ".jobs WHERE state = '"
                         + JobState.WAITING.name().toLowerCase(java.util.Locale.ROOT) + "'")) {
                rs.next();
                if (rs.getLong(1) == jobs) {
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new IllegalStateException("the jobs did not all wait within 10 min");
    }
}
