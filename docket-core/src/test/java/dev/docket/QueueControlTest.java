package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class QueueControlTest extends DocketTest {

    record Item(int n) {
    }

    /** A paused queue is not claimed (while another queue is); resuming runs its jobs at once. */
    @Test
    void pausedQueuesAreNotClaimedAndResumeWakesWorkers() {
        Docket docket = docket();
        ConcurrentHashMap<String, AtomicInteger> ran = new ConcurrentHashMap<>();
        closeAfter(docket.worker().queue("mail", 2).queue("bulk", 2)
                .pollInterval(Duration.ofSeconds(60))
                .handler("job", Item.class, (item, ctx) -> ran.computeIfAbsent(ctx.queue(), q -> new AtomicInteger())
                        .incrementAndGet())
                .start());
        docket.admin().pauseQueue("bulk");
        assertThat(docket.admin().queues()).extracting(QueueSettings::queue, QueueSettings::paused)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("bulk", true));
        long bulk = docket.enqueue("job", new Item(1), JobOptions.builder().queue("bulk").build());
        long mail = docket.enqueue("job", new Item(2), JobOptions.builder().queue("mail").build());

        awaitState(docket, mail, JobState.COMPLETED, Duration.ofSeconds(10));
        await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(3))
                .until(() -> docket.job(bulk).orElseThrow().state() == JobState.READY);

        docket.admin().resumeQueue("bulk");
        awaitState(docket, bulk, JobState.COMPLETED, Duration.ofSeconds(5));
        assertThat(ran.get("bulk")).hasValue(1);
    }

    /** Jobs already running in a queue that gets paused finish normally. */
    @Test
    void pausingLetsRunningJobsFinish() throws Exception {
        Docket docket = docket();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        closeAfter(docket.worker().queue("default", 1)
                .handler("job", Item.class, (item, ctx) -> {
                    started.countDown();
                    release.await();
                })
                .start());
        long id = docket.enqueue("job", new Item(1));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        docket.admin().pauseQueue("default");
        release.countDown();
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
    }

    /**
     * A cluster-wide cap holds across two workers: with 16 free slots between them and 60 ready jobs,
     * exactly 3 run while the handlers are held, and no fourth starts until one finishes.
     */
    @Test
    @Timeout(60)
    void aClusterWideCapHoldsAcrossWorkers() {
        Docket docket = docket();
        docket.admin().setQueueLimits("default", 3, null);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        for (int w = 0; w < 2; w++) {
            closeAfter(docket.worker().queue("default", 8).maintenance(w == 0)
                    .handler("job", Item.class, (item, ctx) -> {
                        peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                        release.await();
                        running.decrementAndGet();
                    })
                    .start());
        }
        List<NewJob> jobs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            jobs.add(NewJob.of("job", new Item(i)));
        }
        docket.enqueueAll(jobs);
        await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 3);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> running.get() == 3);
        release.countDown();
        await().atMost(Duration.ofSeconds(40)).until(() -> queryLong("SELECT count(*) FROM {s}.jobs") == 0);
        assertThat(peak.get()).isEqualTo(3);
    }

    /**
     * The fairness scenario: one tenant floods the queue with 200,000 jobs, another enqueues 1,000
     * behind them. With a per-tenant cap, the second tenant's jobs are all done long before the flood
     * is; without it, they wait behind the whole wall. Prints the second tenant's max lag both ways.
     */
    @Test
    @Timeout(300)
    void aTenantCapKeepsOneTenantsFloodFromDelayingTheOthers() {
        Duration capped = calmTenantLag(4);
        Duration uncapped = calmTenantLag(null);
        System.out.printf("QueueControlTest: calm tenant's max lag behind a 200,000-job flood: %d ms with a tenant cap "
                + "of 4, %s without%n", capped.toMillis(),
                uncapped == null ? "still waiting after " + (capped.toMillis() * 3 + 2000) + " ms (" + calmStartedWhenGivenUp
                        + " of 1,000 had started)" : uncapped.toMillis() + " ms");
        assertThat(uncapped == null || uncapped.compareTo(capped.multipliedBy(3)) > 0)
                .as("without the cap the calm tenant waits behind the flood").isTrue();
    }

    /** Runs the flood with the given tenant cap; returns the calm tenant's max lag, or null if it did not finish in time. */
    private Duration calmTenantLag(Integer tenantCap) {
        String previous = schema;
        schema = schema + (tenantCap == null ? "_u" : "_c");
        try {
            Docket docket = docket();
            if (tenantCap != null) {
                docket.admin().setQueueLimits("default", null, tenantCap);
            }
            List<NewJob> flood = new ArrayList<>();
            for (int i = 0; i < 200_000; i++) {
                flood.add(NewJob.of("job", new Item(i), JobOptions.builder().tenant("flood").build()));
                if (flood.size() == 20_000) {
                    docket.enqueueAll(flood);
                    flood.clear();
                }
            }
            Map<Long, Instant> enqueuedAt = new ConcurrentHashMap<>();
            List<NewJob> calm = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                calm.add(NewJob.of("job", new Item(i), JobOptions.builder().tenant("calm").build()));
            }
            Instant calmEnqueued = Instant.now();
            docket.enqueueAll(calm).forEach(id -> enqueuedAt.put(id, calmEnqueued));
            ConcurrentHashMap<Long, Instant> calmStarted = new ConcurrentHashMap<>();
            AtomicInteger floodDone = new AtomicInteger();
            long deadline = tenantCap != null ? 120_000 : 0;
            Worker worker = docket.worker().queue("default", 8)
                    .handler("job", Item.class, (item, ctx) -> {
                        if ("calm".equals(ctx.tenant())) {
                            calmStarted.put(ctx.jobId(), Instant.now());
                        } else {
                            floodDone.incrementAndGet();
                        }
                    })
                    .start();
            try {
                Duration wait = tenantCap != null ? Duration.ofMillis(deadline) : lastCappedWait;
                try {
                    await().atMost(wait).pollInterval(Duration.ofMillis(50)).until(() -> calmStarted.size() == 1_000);
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    calmStartedWhenGivenUp = calmStarted.size();
                    return null;
                }
                Duration lag = calmStarted.values().stream().map(t -> Duration.between(calmEnqueued, t))
                        .max(Duration::compareTo).orElseThrow();
                if (tenantCap != null) {
                    assertThat(floodDone.get()).as("the flood is far from done when the calm tenant is").isLessThan(150_000);
                    lastCappedWait = lag.multipliedBy(3).plusSeconds(2);
                }
                return lag;
            } finally {
                worker.close();
                db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        } finally {
            schema = previous;
        }
    }

    private Duration lastCappedWait = Duration.ofSeconds(10);
    private int calmStartedWhenGivenUp;

    /** Kind defaults fill what a job's options leave unset, and never override what they set. */
    @Test
    void kindDefaultsApplyToUnsetOptions() {
        Docket docket = docket(b -> b.kindDefaults("mail", JobOptions.builder().queue("email").priority(-5).maxAttempts(3)
                .build()));
        JobInfo plain = docket.job(docket.enqueue("mail", new Item(1))).orElseThrow();
        assertThat(plain.queue()).isEqualTo("email");
        assertThat(plain.priority()).isEqualTo(-5);
        assertThat(plain.maxAttempts()).isEqualTo(3);
        JobInfo explicit = docket.job(docket.enqueue("mail", new Item(2),
                JobOptions.builder().queue("default").priority(0).maxAttempts(9).build())).orElseThrow();
        assertThat(explicit.queue()).isEqualTo("default");
        assertThat(explicit.priority()).isZero();
        assertThat(explicit.maxAttempts()).isEqualTo(9);
        assertThat(docket.job(docket.enqueue("other", new Item(3))).orElseThrow().queue()).isEqualTo("default");
    }

    /** Running jobs are counted per queue and tenant, for the dashboard. */
    @Test
    void countsRunningJobsPerTenant() throws Exception {
        Docket docket = docket();
        CountDownLatch started = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        closeAfter(docket.worker().queue("default", 3)
                .handler("job", Item.class, (item, ctx) -> {
                    started.countDown();
                    release.await();
                })
                .start());
        docket.enqueue("job", new Item(1), JobOptions.builder().tenant("acme").build());
        docket.enqueue("job", new Item(2), JobOptions.builder().tenant("acme").build());
        docket.enqueue("job", new Item(3));
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(docket.admin().runningByTenant()).containsExactly(
                new TenantRunning("default", "acme", 2), new TenantRunning("default", null, 1));
        release.countDown();
    }

    /** Bad settings are refused with a clear message. */
    @Test
    void rejectsBadLimits() {
        Docket docket = docket();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> docket.admin().setQueueLimits("default", -1, null)).withMessageContaining("maxRunning");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> docket.admin().setQueueLimits("default", null, 0)).withMessageContaining("tenantMaxRunning");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> docket.admin().pauseQueue("no spaces")).withMessageContaining("queue");
    }
}
