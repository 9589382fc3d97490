package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
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
        worker(docket, w -> w.queue("mail", 2).queue("bulk", 2)
                .pollInterval(Duration.ofSeconds(60))
                .handler("job", Item.class, (item, ctx) -> ran.computeIfAbsent(ctx.queue(), q -> new AtomicInteger())
                        .incrementAndGet()));
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
        worker(docket, w -> w.queue("default", 1)
                .handler("job", Item.class, (item, ctx) -> {
                    started.countDown();
                    release.await();
                }));
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
        for (int n = 0; n < 2; n++) {
            boolean maintains = n == 0;
            worker(docket, w -> w.queue("default", 8).maintenance(maintains)
                    .handler("job", Item.class, (item, ctx) -> {
                        peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                        release.await();
                        running.decrementAndGet();
                    }));
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
     * The fairness of tenant caps: one tenant floods a queue with 3,000 jobs, another enqueues 100 behind
     * them. With a per-tenant cap of 4 every calm job starts before the flood's 1,000th; without a cap none
     * starts before the flood's last claims (the oldest jobs are claimed first). The benchmark's
     * {@code fairness} scenario runs the same with a flood of 200,000 and reports the calm tenant's lag.
     */
    @Test
    @Timeout(120)
    void aTenantCapKeepsOneTenantsFloodFromDelayingTheOthers() {
        Docket docket = docket();
        docket.admin().setQueueLimits("capped", null, 4);

        List<Integer> capped = floodStartedBeforeEachCalmJob(docket, "capped");
        List<Integer> uncapped = floodStartedBeforeEachCalmJob(docket, "uncapped");

        assertThat(capped).as("flood jobs started before each calm job, with a tenant cap").hasSize(CALM)
                .allSatisfy(n -> assertThat(n).isLessThan(1_000));
        assertThat(uncapped).as("flood jobs started before each calm job, without a cap").hasSize(CALM)
                .allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(FLOOD - 100));
    }

    private static final int FLOOD = 3_000;
    private static final int CALM = 100;

    /** Enqueues the flood, then the calm jobs, in {@code queue}; runs them; returns how many flood jobs had started before each calm one. */
    private List<Integer> floodStartedBeforeEachCalmJob(Docket docket, String queue) {
        JobOptions flood = JobOptions.builder().queue(queue).tenant("flood").build();
        JobOptions calm = JobOptions.builder().queue(queue).tenant("calm").build();
        docket.enqueueAll(IntStream.range(0, FLOOD).mapToObj(i -> NewJob.of("job", new Item(i), flood)).toList());
        docket.enqueueAll(IntStream.range(0, CALM).mapToObj(i -> NewJob.of("job", new Item(i), calm)).toList());
        AtomicInteger floodStarted = new AtomicInteger();
        List<Integer> floodBeforeCalm = new CopyOnWriteArrayList<>();
        try (Worker worker = docket.worker().queue(queue, 8)
                .handler("job", Item.class, (item, ctx) -> {
                    if ("calm".equals(ctx.tenant())) {
                        floodBeforeCalm.add(floodStarted.get());
                    } else {
                        floodStarted.incrementAndGet();
                    }
                })
                .start()) {
            await().atMost(Duration.ofSeconds(60)).until(() -> floodBeforeCalm.size() == CALM);
        }
        return floodBeforeCalm;
    }

    /** Kind defaults fill what a job's options leave unset, and never override what they set. */
    @Test
    void kindDefaultsApplyToUnsetOptions() {
        Docket docket = docket(b -> b.kind(JobKind.of("mail", Item.class)
                .defaults(KindDefaults.builder().queue("email").priority(-5).maxAttempts(3).build()).build()));
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
        worker(docket, w -> w.queue("default", 3)
                .handler("job", Item.class, (item, ctx) -> {
                    started.countDown();
                    release.await();
                }));
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
