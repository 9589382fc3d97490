package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SnoozeAndVersionTest extends DocketTest {

    record Greeting(String name) {
    }

    /** Version 2 of the payload split the name in two. */
    record GreetingV2(String first, String last) {
    }

    /** A snoozed attempt is not a failure: no error, the attempt given back, and the job runs again after the delay. */
    @Test
    void snoozeReschedulesWithoutCountingAFailure() {
        Docket docket = docket();
        AtomicInteger calls = new AtomicInteger();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler("poll", Greeting.class, (g, ctx) -> {
                    attempts.add(ctx.attempt());
                    if (calls.incrementAndGet() < 3) {
                        ctx.snooze(Duration.ofMillis(200));
                    }
                }));
        long id = docket.enqueue("poll", new Greeting("x"), JobOptions.builder().maxAttempts(1).build());
        JobInfo done = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(calls).hasValue(3);
        assertThat(attempts).containsExactly(1, 1, 1);
        assertThat(done.errors()).isEmpty();
        assertThat(done.attempt()).isEqualTo(1);
    }

    /** While snoozed the job waits as SCHEDULED with run_at about the delay ahead of the database clock. */
    @Test
    void aSnoozedJobWaitsScheduled() {
        Docket docket = docket();
        worker(docket, w -> w.queue("default", 1)
                .handler("later", Greeting.class, (g, ctx) -> ctx.snooze(Duration.ofHours(1))));
        long id = docket.enqueue("later", new Greeting("x"));
        JobInfo waiting = awaitState(docket, id, JobState.SCHEDULED, Duration.ofSeconds(10));
        assertThat(waiting.attempt()).isZero();
        assertThat(queryLong("SELECT extract(epoch FROM run_at - now())::bigint FROM {s}.jobs WHERE id = " + id))
                .isBetween(3590L, 3600L);
    }

    @Test
    void snoozeRejectsBadDelays() {
        Docket docket = docket();
        List<String> errors = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 1)
                .handler("bad", Greeting.class, (g, ctx) -> {
                    try {
                        ctx.snooze(Duration.ofSeconds(-1));
                    } catch (IllegalArgumentException e) {
                        errors.add(e.getMessage());
                    }
                }));
        long id = docket.enqueue("bad", new Greeting("x"));
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(errors).singleElement().asString().contains("snooze delay");
    }

    /** Version 2 of the kind "greet": what a newer producer enqueues and a newer worker reads. */
    private static final JobKind<GreetingV2> GREET_V2 = JobKind.of("greet", GreetingV2.class).payloadVersion(2)
            .upcaster(1, tree -> {
                String[] parts = tree.get("name").asText().split(" ", 2);
                ObjectNode v2 = ((ObjectNode) tree).objectNode();
                v2.put("first", parts[0]);
                v2.put("last", parts.length > 1 ? parts[1] : "");
                return v2;
            })
            .build();

    /** A job enqueued with payload version 1 reaches a handler of version 2 through the kind's upcaster. */
    @Test
    void oldPayloadsAreUpcastBeforeMapping() {
        Docket docket = docket();
        long old = docket.enqueue("greet", new Greeting("Ada Lovelace"));
        long current = docket.enqueue(GREET_V2, new GreetingV2("Grace", "Hopper")).id();
        List<GreetingV2> seen = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 1).handler(GREET_V2, (g, ctx) -> seen.add(g)));
        awaitState(docket, old, JobState.COMPLETED, Duration.ofSeconds(10));
        awaitState(docket, current, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(seen).containsExactlyInAnyOrder(new GreetingV2("Ada", "Lovelace"), new GreetingV2("Grace", "Hopper"));
        assertThat(docket.job(old).orElseThrow().payloadVersion()).isEqualTo(1);
        assertThat(docket.job(current).orElseThrow().payloadVersion()).isEqualTo(2);
    }

    /** The producer side stamps the kind's current version, by name too when the Docket declares the kind. */
    @Test
    void theKindsCurrentVersionIsStampedAtEnqueue() {
        Docket docket = docket(b -> b.kind(JobKind.of("greet", Greeting.class).payloadVersion(3).build()));
        long id = docket.enqueue("greet", new Greeting("x"));
        assertThat(docket.job(id).orElseThrow().payloadVersion()).isEqualTo(3);
        long other = docket.enqueue("other", new Greeting("x"));
        assertThat(docket.job(other).orElseThrow().payloadVersion()).isEqualTo(1);
    }

    /**
     * Rolling deploy: a newer producer's payload version reaches a worker that reads an older one. The
     * job is not failed: it waits (scheduled, its attempt given back, no error) with the reason in its
     * detail, until a worker that reads the version runs it.
     */
    @Test
    void aNewerPayloadVersionWaitsForAWorkerThatReadsIt() {
        Docket docket = docket();
        long id = docket.enqueue(GREET_V2, new GreetingV2("Grace", "Hopper")).id();
        AtomicInteger oldRuns = new AtomicInteger();
        Worker old = docket.worker().queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler("greet", Greeting.class, (g, ctx) -> oldRuns.incrementAndGet())
                .start();
        JobInfo waiting = org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> docket.job(id).orElseThrow(), j -> j.waitReason().isPresent());
        assertThat(waiting.state()).isIn(JobState.SCHEDULED, JobState.READY);
        assertThat(waiting.waitReason().orElseThrow())
                .contains("payload version 2 is newer than this worker's handler reads (1)")
                .contains("waiting up to PT1H");
        assertThat(waiting.attempt()).isZero();
        assertThat(waiting.errors()).isEmpty();
        assertThat(waiting.metadata()).contains("docket.waitingSince");
        old.close();

        List<GreetingV2> seen = new CopyOnWriteArrayList<>();
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler(GREET_V2, (g, ctx) -> seen.add(g)));
        JobInfo done = awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(seen).containsExactly(new GreetingV2("Grace", "Hopper"));
        assertThat(oldRuns).hasValue(0);
        assertThat(done.attempt()).isEqualTo(1);
        assertThat(done.errors()).isEmpty();
        assertThat(done.waitReason()).isEmpty();
    }

    /**
     * The wait is bounded: once no worker that reads the version took the job for the kind's
     * newerVersionWait (measured from the first put-back, across put-backs), it fails permanently.
     */
    @Test
    void aNewerPayloadVersionFailsOnceItsWaitIsOver() {
        Docket docket = docket();
        JobKind<Greeting> greet = JobKind.of("greet", Greeting.class).payloadVersion(2)
                .newerVersionWait(Duration.ofSeconds(3)).build();
        long id = docket.enqueue("greet", new Greeting("x"), JobOptions.builder().payloadVersion(5).build());
        worker(docket, w -> w.queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler(greet, (g, ctx) -> { }));
        JobInfo dead = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(20));
        assertThat(dead.deadReason()).contains("payload version 5 is newer").contains("(2)")
                .contains("within PT3S");
        assertThat(dead.attempt()).isEqualTo(1);
        assertThat(dead.metadata()).contains("docket.waiting");
        assertThat(Duration.between(dead.createdAt(), dead.finishedAt())).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    }

    /** A wait of zero fails a newer payload version at once, with a clear error. */
    @Test
    void aNewerPayloadVersionWithNoWaitFailsPermanently() {
        Docket docket = docket();
        long id = docket.enqueue("greet", new Greeting("x"), JobOptions.builder().payloadVersion(5).build());
        worker(docket, w -> w.queue("default", 1)
                .handler(JobKind.of("greet", Greeting.class).payloadVersion(2).newerVersionWait(Duration.ZERO).build(),
                        (g, ctx) -> { }));
        JobInfo dead = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(10));
        assertThat(dead.attempt()).isEqualTo(1);
        assertThat(dead.deadReason()).contains("payload version 5 is newer").contains("(2)");
        assertThat(dead.metadata()).doesNotContain("docket.waiting");
    }

    /** A missing step in the upcaster chain is a permanent failure that names the step. */
    @Test
    void aMissingUpcasterFailsPermanently() {
        Docket docket = docket();
        long id = docket.enqueue("greet", new Greeting("x"));
        worker(docket, w -> w.queue("default", 1)
                .handler(JobKind.of("greet", Greeting.class).payloadVersion(3).build(), (g, ctx) -> { }));
        JobInfo dead = awaitState(docket, id, JobState.DEAD, Duration.ofSeconds(10));
        assertThat(dead.deadReason()).contains("no upcaster from payload version 1 to 2");
    }

    @Test
    void rejectsBadVersionSettings() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().payloadVersion(0));
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("greet", Greeting.class).payloadVersion(0));
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("greet", Greeting.class)
                .newerVersionWait(Duration.ofDays(31)));
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("greet", Greeting.class)
                .upcaster(1, t -> t).upcaster(1, t -> t)).withMessageContaining("already has an upcaster from version 1");
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("greet", Greeting.class).payloadVersion(3)
                .upcaster(1, t -> t).build()).withMessageContaining("no upcaster from version 2 to 3");
    }
}
