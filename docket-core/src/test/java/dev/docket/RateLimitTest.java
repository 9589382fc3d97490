package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Rate limits: at most {@code permits} starts per {@code period} in every window, cluster-wide, enforced by the claim. */
class RateLimitTest extends DocketTest {

    record Item(int n) {
    }

    private static final Duration HOUR = Duration.ofHours(1);

    /**
     * The test: four workers (32 slots, on two Docket instances with pools of their own, as two
     * processes would be) drain a backlog of a kind limited to 50 per second for
     * ten seconds. By the database clock at which each job was claimed (its attemptedAt), no sliding
     * second holds more than 50 starts, and the ten seconds hold 500 ± 10%.
     */
    @Test
    @Tag("load")
    @Timeout(90)
    void fourWorkersNeverStartMoreThanTheLimitInAnySlidingSecond() throws SQLException {
        Docket docket = docket(b -> b.rateLimit("limited", 50, Duration.ofSeconds(1)));
        Docket other = docket(b -> b.rateLimit("limited", 50, Duration.ofSeconds(1)));
        docket.enqueueAll(IntStream.range(0, 1_500).mapToObj(i -> NewJob.of("limited", new Item(i))).toList());
        for (int n = 0; n < 4; n++) {
            boolean maintains = n == 0;
            worker(n % 2 == 0 ? docket : other, w -> w.queue("default", 8).maintenance(maintains)
                    .handler("limited", Item.class, (item, ctx) -> { }));
        }
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200))
                .until(() -> queryLong("SELECT (extract(epoch FROM now() - min(attempted_at)) * 1000)::bigint FROM "
                        + "(SELECT attempted_at FROM {s}.jobs UNION ALL SELECT attempted_at FROM {s}.job_history) s "
                        + "WHERE attempted_at IS NOT NULL") >= 10_500);

        List<Long> starts = startMicros();
        long first = starts.getFirst();
        List<Long> tenSeconds = starts.stream().filter(t -> t < first + 10_000_000).toList();
        assertThat(maxInAnyWindow(starts, 1_000_000)).as("starts in the busiest sliding second").isLessThanOrEqualTo(50);
        assertThat(tenSeconds).as("starts in the first ten seconds").hasSizeBetween(450, 550);
    }

    /** The most timestamps (microseconds, sorted) within any half-open window [t, t + width). */
    private static int maxInAnyWindow(List<Long> sorted, long width) {
        int max = 0;
        int j = 0;
        for (int i = 0; i < sorted.size(); i++) {
            while (j < sorted.size() && sorted.get(j) < sorted.get(i) + width) {
                j++;
            }
            max = Math.max(max, j - i);
        }
        return max;
    }

    /** Every job's claim time so far, in microseconds of the database clock, sorted. */
    private List<Long> startMicros() throws SQLException {
        List<Long> starts = new ArrayList<>();
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(("SELECT (extract(epoch FROM attempted_at) * 1000000)::bigint FROM "
                     + "(SELECT attempted_at FROM {s}.jobs UNION ALL SELECT attempted_at FROM {s}.job_history) s "
                     + "WHERE attempted_at IS NOT NULL ORDER BY 1").replace("{s}", schema));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                starts.add(rs.getLong(1));
            }
        }
        return starts;
    }

    /**
     * A kind out of permits does not hold back the other kinds of its queue, even when its jobs are
     * ahead of theirs in claim order: the limited kind starts exactly its 5 permits, the 300 others all run.
     */
    @Test
    @Timeout(60)
    void otherKindsOfTheQueueKeepFlowing() {
        Docket docket = docket(b -> b.rateLimit("limited", 5, HOUR));
        AtomicInteger limited = new AtomicInteger();
        AtomicInteger free = new AtomicInteger();
        docket.enqueueAll(IntStream.range(0, 600).mapToObj(i -> NewJob.of("limited", new Item(i))).toList());
        docket.enqueueAll(IntStream.range(0, 300).mapToObj(i -> NewJob.of("free", new Item(i))).toList());
        worker(docket, w -> w.queue("default", 8)
                .handler("limited", Item.class, (item, ctx) -> limited.incrementAndGet())
                .handler("free", Item.class, (item, ctx) -> free.incrementAndGet()));
        await().atMost(Duration.ofSeconds(30)).until(() -> free.get() == 300);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> limited.get() == 5);
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'limited' AND state = 'ready'")).isEqualTo(595);

        long held = queryLong("SELECT min(id) FROM {s}.jobs WHERE kind = 'limited'");
        JobExplanation.Reason reason = docket.admin().explain(held).orElseThrow().reasons().getFirst();
        assertThat(reason.code()).isEqualTo(JobExplanation.Code.RATE_LIMITED);
        assertThat(reason.facts()).containsEntry("scope", "kind").containsEntry("name", "limited")
                .containsEntry("permits", "5").containsEntry("used", "5").containsEntry("period", "PT1H")
                .containsKey("nextPermitAt").doesNotContainKey("tenant");
        assertThat(Instant.parse(reason.facts().get("nextPermitAt")))
                .isAfter(Instant.now().plus(Duration.ofMinutes(50)));
    }

    /** With budgets per tenant, each tenant (and the jobs without one, together) starts its own 3 permits. */
    @Test
    @Timeout(60)
    void perTenantLimitsGiveEachTenantItsOwnBudget() {
        Docket docket = docket(b -> b.rateLimit(RateLimit.ofKind("report", 3, HOUR).perTenantBudgets()));
        for (String tenant : new String[] {"acme", "globex", null}) {
            JobOptions options = JobOptions.builder().tenant(tenant).build();
            docket.enqueueAll(IntStream.range(0, 10).mapToObj(i -> NewJob.of("report", new Item(i), options)).toList());
        }
        worker(docket, w -> w.queue("default", 8).handler("report", Item.class, (item, ctx) -> { }));
        await().atMost(Duration.ofSeconds(20)).until(() -> completed("report") == 9);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> completed("report") == 9);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE tenant = 'acme'")).isEqualTo(3);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE tenant = 'globex'")).isEqualTo(3);
        assertThat(queryLong("SELECT count(*) FROM {s}.job_history WHERE tenant IS NULL")).isEqualTo(3);
        long held = queryLong("SELECT min(id) FROM {s}.jobs WHERE tenant = 'acme'");
        assertThat(docket.admin().explain(held).orElseThrow().reasons()).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo(JobExplanation.Code.RATE_LIMITED);
            assertThat(r.facts()).containsEntry("tenant", "acme").containsEntry("used", "3");
        });
    }

    /**
     * Claims that find a limit out of permits are counted per queue, when the application gave a registry;
     * a queue of the same worker that holds none of the limited kind's jobs is not held back (nor counted).
     */
    @Test
    @Timeout(60)
    void claimsHeldBackByALimitAreCounted() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Docket docket = docket(b -> b.rateLimit("limited", 2, HOUR).meterRegistry(registry));
        docket.enqueueAll(IntStream.range(0, 5).mapToObj(i -> NewJob.of("limited", new Item(i))).toList());
        worker(docket, w -> w.queue("default", 4).queue("other", 4).pollInterval(Duration.ofMillis(50))
                .handler("limited", Item.class, (item, ctx) -> { }));
        await().atMost(Duration.ofSeconds(20)).until(() -> completed("limited") == 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> heldBack(registry, "default") >= 1);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> heldBack(registry, "other") == 0);
    }

    private static double heldBack(SimpleMeterRegistry registry, String queue) {
        Counter c = registry.find("docket.claims.rate.limited").tag("queue", queue).counter();
        return c == null ? 0 : c.count();
    }

    /** A queue's limit counts every kind in it. */
    @Test
    @Timeout(60)
    void aQueueLimitCountsEveryKind() {
        Docket docket = docket(b -> b.queueRateLimit("partner", 4, HOUR));
        JobOptions partner = JobOptions.builder().queue("partner").build();
        docket.enqueueAll(IntStream.range(0, 10).mapToObj(i -> NewJob.of(i % 2 == 0 ? "a" : "b", new Item(i), partner))
                .toList());
        worker(docket, w -> w.queue("partner", 8).handler("a", Item.class, (item, ctx) -> { })
                .handler("b", Item.class, (item, ctx) -> { }));
        await().atMost(Duration.ofSeconds(20)).until(() -> completed("a") + completed("b") == 4);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> completed("a") + completed("b") == 4);
    }

    /**
     * An edit at run time takes effect without a restart, and a node that declares the limit again
     * leaves the edit in force; removing the edit brings the declaration back at the next worker start.
     */
    @Test
    @Timeout(60)
    void runTimeEditsTakeEffectAndOutliveDeclarations() {
        Docket docket = docket(b -> b.rateLimit("mail", 2, HOUR));
        docket.enqueueAll(IntStream.range(0, 10).mapToObj(i -> NewJob.of("mail", new Item(i))).toList());
        worker(docket, w -> w.queue("default", 4).handler("mail", Item.class, (item, ctx) -> { }));
        await().atMost(Duration.ofSeconds(20)).until(() -> completed("mail") == 2);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> completed("mail") == 2);

        docket.admin().setRateLimit(RateLimit.ofKind("mail", 6, HOUR));
        await().atMost(Duration.ofSeconds(10)).until(() -> completed("mail") == 6);
        assertThat(docket.admin().rateLimits()).singleElement().satisfies(s -> {
            assertThat(s.limit()).isEqualTo(RateLimit.ofKind("mail", 6, HOUR));
            assertThat(s.edited()).isTrue();
        });

        Docket redeclaring = docket(b -> b.rateLimit("mail", 2, HOUR));
        worker(redeclaring, w -> w.queue("other", 1).maintenance(false).handler("mail", Item.class, (item, ctx) -> { }));
        assertThat(docket.admin().rateLimits()).singleElement()
                .satisfies(s -> assertThat(s.limit().permits()).isEqualTo(6));

        assertThat(docket.admin().removeRateLimit(RateLimit.Scope.KIND, "mail")).isTrue();
        assertThat(docket.admin().removeRateLimit(RateLimit.Scope.KIND, "mail")).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> completed("mail") == 10);
        worker(redeclaring, w -> w.queue("other", 1).maintenance(false).handler("mail", Item.class, (item, ctx) -> { }));
        assertThat(docket.admin().rateLimits()).singleElement().satisfies(s -> {
            assertThat(s.limit().permits()).isEqualTo(2);
            assertThat(s.edited()).isFalse();
        });
    }

    /** A queue with both caps and a rate limit keeps both. */
    @Test
    @Timeout(60)
    void capsStillHoldInARateLimitedQueue() throws Exception {
        Docket docket = docket(b -> b.rateLimit("slow", 6, HOUR));
        docket.admin().setQueueLimits("default", 2, null);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        docket.enqueueAll(IntStream.range(0, 10).mapToObj(i -> NewJob.of("slow", new Item(i))).toList());
        worker(docket, w -> w.queue("default", 8).handler("slow", Item.class, (item, ctx) -> {
            peak.accumulateAndGet(running.incrementAndGet(), Math::max);
            release.await();
            running.decrementAndGet();
        }));
        await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 2);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3)).until(() -> running.get() == 2);
        release.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> completed("slow") == 6);
        assertThat(peak.get()).isEqualTo(2);
    }

    /** Bad limits are refused with a message that names what is wrong, from the builder and at run time. */
    @Test
    void refusesBadLimits() {
        Docket docket = docket();
        docket.enqueue("known", new Item(1));
        Duration second = Duration.ofSeconds(1);
        Docket.Builder builder = Docket.builder(dataSource());
        assertRefused(() -> builder.rateLimit("known", 0, second), "permits must be between 1 and 1000000, was 0");
        assertRefused(() -> builder.rateLimit("known", -5, second), "permits");
        assertRefused(() -> builder.rateLimit("known", 1_000_001, second), "permits");
        assertRefused(() -> builder.rateLimit("known", 5, Duration.ZERO), "period must be between 1 ms and 7 days");
        assertRefused(() -> builder.rateLimit("known", 5, Duration.ofSeconds(-1)), "period");
        assertRefused(() -> builder.rateLimit("known", 5, Duration.ofDays(8)), "period");
        assertRefused(() -> builder.rateLimit("known", 5, Duration.ofSeconds(Long.MAX_VALUE)), "period");
        assertRefused(() -> builder.rateLimit("known", 5, Duration.ofNanos(1_500_000)), "whole number of milliseconds");
        assertRefused(() -> builder.rateLimit("", 5, second), "kind");
        assertRefused(() -> builder.rateLimit("bad\u0000kind", 5, second), "kind");
        assertRefused(() -> builder.rateLimit("evil\u202Egnp.exe", 5, second), "kind");
        assertRefused(() -> builder.rateLimit("\uD800", 5, second), "kind");
        assertRefused(() -> builder.rateLimit("x".repeat(256), 5, second), "kind");
        assertRefused(() -> builder.queueRateLimit("no spaces", 5, second), "queue");
        assertRefused(() -> builder.queueRateLimit("'; DROP TABLE jobs; --", 5, second), "queue");
        builder.rateLimit("known", 5, second);
        assertRefused(() -> builder.rateLimit("known", 9, second), "a rate limit on kind 'known' is already declared");
        assertThatNullPointerException().isThrownBy(() -> builder.rateLimit("k", 1, null));

        assertRefused(() -> docket.admin().setRateLimit(RateLimit.ofKind("unknwon", 5, second)), "no kind unknwon is known");
        assertRefused(() -> docket.admin().setRateLimit(RateLimit.ofQueue("nowhere", 5, second)), "no queue nowhere is known");
        assertRefused(() -> docket.admin().removeRateLimit(RateLimit.Scope.QUEUE, "bad queue"), "queue");
        assertThat(docket.admin().rateLimits()).isEmpty();
        docket.admin().setRateLimit(RateLimit.ofKind("known", 5, second));
        docket.admin().setRateLimit(RateLimit.ofKind("brand-new", 5, second), true);
        docket.admin().setRateLimit(RateLimit.ofQueue("default", 5, second));
        assertThat(docket.admin().rateLimits()).extracting(s -> s.limit().name()).containsExactly("brand-new", "known", "default");
    }

    private static void assertRefused(ThrowingCallable call, String message) {
        assertThatIllegalArgumentException().isThrownBy(call).withMessageContaining(message);
    }

    /**
     * A partner API limited to 20 calls a second sees the handlers, not the claims. One worker with 16
     * slots drains 100 jobs of a kind limited to 20 per second: handler starts, by this JVM's clock, keep
     * to the limit over any window of nine tenths of the period (the bound Producer.startsInTime keeps a
     * start within after its claim was counted), less 50 ms for a handler's virtual thread to begin after
     * its dispatch on a loaded machine. Once, a claim's handlers starting 200 ms late beside the next
     * claim's made 36 starts in one second.
     */
    @Test
    @Timeout(90)
    void handlerStartsKeepToTheLimitByTheWorkersOwnClock() {
        Docket docket = docket(b -> b.rateLimit("limited", 20, Duration.ofSeconds(1)));
        docket.enqueueAll(IntStream.range(0, 100).mapToObj(i -> NewJob.of("limited", new Item(i))).toList());
        List<Long> handlerStarts = Collections.synchronizedList(new ArrayList<>());
        worker(docket, w -> w.queue("default", 16)
                .handler("limited", Item.class, (item, ctx) -> handlerStarts.add(System.nanoTime() / 1_000)));

        await().atMost(Duration.ofSeconds(60)).until(() -> completed("limited") == 100);

        List<Long> sorted = handlerStarts.stream().sorted().toList();
        assertThat(sorted).as("every job's handler ran once").hasSize(100);
        assertThat(maxInAnyWindow(sorted, 850_000)).as("handler starts in the busiest 850 ms").isLessThanOrEqualTo(20);
    }

    private long completed(String kind) {
        return queryLong("SELECT count(*) FROM {s}.job_history WHERE kind = ?", kind);
    }
}
