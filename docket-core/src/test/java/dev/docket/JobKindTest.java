package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.docket.testing.DocketTest;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A JobKind declares everything about a kind once; enqueue and handler take it whole. */
class JobKindTest extends DocketTest {

    record SendEmail(String to) {
    }

    record SendEmailV2(String to, String subject) {
    }

    private static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send_email", SendEmail.class)
            .retry(RetryPolicy.defaults().withMaxAttempts(2).withBackoff(Duration.ofMillis(10), Duration.ofMillis(20)))
            .defaults(KindDefaults.builder().queue("email").priority(-3).tenant("acme").build())
            .build();

    /** The kind's defaults, version and retry policy's max attempts fill what the job's options leave unset. */
    @Test
    void enqueueTakesTheKindsSettings() {
        Docket docket = docket();
        JobKind<SendEmail> v3 = SEND_EMAIL.toBuilder().payloadVersion(3).upcaster(1, t -> t).upcaster(2, t -> t).build();

        Enqueued plain = docket.enqueue(v3, new SendEmail("a@b.c"));
        JobInfo job = docket.job(plain.id()).orElseThrow();
        assertThat(plain.inserted()).isTrue();
        assertThat(job.kind()).isEqualTo("send_email");
        assertThat(job.queue()).isEqualTo("email");
        assertThat(job.priority()).isEqualTo(-3);
        assertThat(job.tenant()).isEqualTo("acme");
        assertThat(job.maxAttempts()).isEqualTo(2);
        assertThat(job.payloadVersion()).isEqualTo(3);
        assertThat(job.payload()).contains("a@b.c");

        Enqueued own = docket.enqueue(v3, new SendEmail("x@y.z"),
                JobOptions.builder().queue("urgent").maxAttempts(7).build());
        JobInfo overridden = docket.job(own.id()).orElseThrow();
        assertThat(overridden.queue()).isEqualTo("urgent");
        assertThat(overridden.maxAttempts()).isEqualTo(7);
        assertThat(overridden.priority()).as("still the kind's").isEqualTo(-3);

        JobInfo bare = docket.job(docket.enqueue(JobKind.of("bare", SendEmail.class).build(), new SendEmail("q")).id())
                .orElseThrow();
        assertThat(bare.queue()).isEqualTo("default");
        assertThat(bare.maxAttempts()).as("the Docket's default policy").isEqualTo(RetryPolicy.defaults().maxAttempts());
        assertThat(bare.payloadVersion()).isEqualTo(1);
    }

    /** The typed family: many at once, and inside a caller's transaction (gone with its rollback). */
    @Test
    void theTypedFamilyEnqueuesManyAndInTheCallersTransaction() throws Exception {
        Docket docket = docket();
        List<Enqueued> many = docket.enqueueAll(SEND_EMAIL, List.of(new SendEmail("1"), new SendEmail("2")));
        assertThat(many).hasSize(2).allSatisfy(e -> assertThat(e.inserted()).isTrue());
        assertThat(many.get(1).id()).isGreaterThan(many.get(0).id());
        assertThat(docket.job(many.get(1).id()).orElseThrow().queue()).isEqualTo("email");

        try (Connection tx = dataSource().getConnection()) {
            tx.setAutoCommit(false);
            Enqueued one = docket.enqueue(tx, SEND_EMAIL, new SendEmail("3"));
            List<Enqueued> two = docket.enqueueAll(tx, SEND_EMAIL, List.of(new SendEmail("4"), new SendEmail("5")));
            Enqueued keyed = docket.enqueue(tx, SEND_EMAIL, new SendEmail("6"), JobOptions.builder().uniqueKey("k").build());
            Enqueued again = docket.enqueue(tx, SEND_EMAIL, new SendEmail("7"), JobOptions.builder().uniqueKey("k").build());
            assertThat(one.inserted()).isTrue();
            assertThat(two).hasSize(2);
            assertThat(again.inserted()).as("a live job holds the key").isFalse();
            assertThat(again.id()).isEqualTo(keyed.id());
            tx.rollback();
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(2);
    }

    /**
     * A kind by name answers like the typed family and enqueues exactly as the string form does: with the
     * settings the Docket declares for the name (version, defaults, retry policy), or none.
     */
    @Test
    void aKindByNameTakesTheDocketsSettingsForTheNameAndSaysWhetherItInserted() {
        Docket docket = docket(b -> b.kind(SEND_EMAIL.toBuilder().payloadVersion(2).upcaster(1, t -> t).build()));
        JobOptions keyed = JobOptions.builder().uniqueKey("welcome:ada").build();

        Enqueued first = docket.enqueue(JobKind.named("send_email"), java.util.Map.of("to", "ada"), keyed);
        Enqueued again = docket.enqueue(JobKind.named("send_email"), java.util.Map.of("to", "ada"), keyed);
        long byString = docket.enqueue("send_email", java.util.Map.of("to", "bob"));

        assertThat(first.inserted()).isTrue();
        assertThat(again).isEqualTo(new Enqueued(first.id(), false));
        for (long id : new long[] {first.id(), byString}) {
            JobInfo job = docket.job(id).orElseThrow();
            assertThat(job.queue()).isEqualTo("email");
            assertThat(job.payloadVersion()).isEqualTo(2);
            assertThat(job.maxAttempts()).isEqualTo(2);
        }
        JobInfo undeclared = docket.job(docket.enqueue(JobKind.named("other"), "x").id()).orElseThrow();
        assertThat(undeclared.queue()).isEqualTo("default");
        assertThat(undeclared.payloadVersion()).isEqualTo(1);
        assertThat(NewJob.of(JobKind.named("other"), "x", JobOptions.defaults()).options())
                .as("a kind by name fills in nothing of its own").isEqualTo(JobOptions.defaults());
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.named(" "));
    }

    /**
     * A workflow answers its id and each step's job by name (steps have no unique keys, so each is
     * inserted); a batch answers each job and whether a live job already held its key.
     */
    @Test
    void workflowsAndBatchesAnswerWhatTheyEnqueued() {
        Docket docket = docket();
        WorkflowEnqueued workflow = docket.enqueueWorkflow(Workflow.builder("answers")
                .step("second", SEND_EMAIL, new SendEmail("2"))
                .step("first", SEND_EMAIL, new SendEmail("1"), "second")
                .build());
        assertThat(workflow.steps().keySet()).containsExactly("second", "first");
        assertThat(workflow.steps().values()).allSatisfy(e -> assertThat(e.inserted()).isTrue());
        assertThat(docket.admin().workflow(workflow.id()).orElseThrow().steps())
                .extracting(WorkflowInfo.Step::jobId)
                .containsExactlyInAnyOrderElementsOf(workflow.steps().values().stream().map(Enqueued::id).toList());

        Enqueued held = docket.enqueue(SEND_EMAIL, new SendEmail("held"), JobOptions.builder().uniqueKey("held").build());
        BatchEnqueued batch = docket.enqueueBatch(Batch.builder()
                .job(NewJob.of(SEND_EMAIL, new SendEmail("held"), JobOptions.builder().uniqueKey("held").build()))
                .job(SEND_EMAIL, new SendEmail("3")).build());
        assertThat(batch.jobs()).containsExactly(new Enqueued(held.id(), false),
                new Enqueued(batch.jobs().get(1).id(), true));
    }

    /** A kind without a retry policy of its own takes the Docket's for its name, before the default. */
    @Test
    void aKindWithoutItsOwnRetryPolicyTakesTheDocketsForItsName() {
        Docket docket = docket(b -> b.retryPolicy("plain", RetryPolicy.defaults().withMaxAttempts(3)));
        JobKind<SendEmail> plain = JobKind.of("plain", SendEmail.class).build();
        assertThat(docket.job(docket.enqueue(plain, new SendEmail("a")).id()).orElseThrow().maxAttempts()).isEqualTo(3);
        assertThat(docket.job(docket.enqueueJobs(List.of(NewJob.of(plain, new SendEmail("b")))).getFirst().id())
                .orElseThrow().maxAttempts()).isEqualTo(3);
        assertThat(docket.job(docket.enqueue(JobKind.of("unnamed", SendEmail.class).build(), new SendEmail("c")).id())
                .orElseThrow().maxAttempts()).isEqualTo(RetryPolicy.defaults().maxAttempts());
    }

    /** Code that only enqueues depends on the interface, and its tests on a fake of it. */
    @Test
    void enqueuerIsAnInterfaceThatDocketImplements() {
        assertThat(Enqueuer.class.isInterface()).isTrue();
        Enqueuer enqueuer = docket();
        assertThat(enqueuer.enqueue(SEND_EMAIL, new SendEmail("via the interface")).inserted()).isTrue();
    }

    /** A batch may mix typed kinds and string kinds; each typed job is enqueued as the kind says. */
    @Test
    void newJobOfAKindCarriesItsSettingsIntoAMixedBatch() {
        Docket docket = docket();
        List<Enqueued> result = docket.enqueueJobs(List.of(
                NewJob.of(SEND_EMAIL, new SendEmail("a")),
                NewJob.of(SEND_EMAIL, new SendEmail("b"), JobOptions.builder().priority(5).build()),
                NewJob.of("plain", new SendEmail("c"))));
        JobInfo first = docket.job(result.get(0).id()).orElseThrow();
        JobInfo second = docket.job(result.get(1).id()).orElseThrow();
        JobInfo third = docket.job(result.get(2).id()).orElseThrow();
        assertThat(first.queue()).isEqualTo("email");
        assertThat(first.maxAttempts()).isEqualTo(2);
        assertThat(second.priority()).isEqualTo(5);
        assertThat(second.tenant()).isEqualTo("acme");
        assertThat(third.queue()).isEqualTo("default");
    }

    /** handler(KIND, handler) needs nothing else: the retry policy, version and upcasters come from the kind. */
    @Test
    void aHandlerOfAKindRunsWithTheKindsSettings() {
        Docket docket = docket();
        JobKind<SendEmailV2> v2 = JobKind.of("send_email", SendEmailV2.class)
                .retry(RetryPolicy.defaults().withMaxAttempts(2).withBackoff(Duration.ofMillis(10), Duration.ofMillis(20)))
                .payloadVersion(2)
                .upcaster(1, tree -> ((ObjectNode) tree).put("subject", "(none)"))
                .build();
        long old = docket.enqueue(SEND_EMAIL, new SendEmail("old@b.c")).id();
        long failing = docket.enqueue(v2, new SendEmailV2("fail@b.c", "s")).id();
        List<SendEmailV2> seen = new CopyOnWriteArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        worker(docket, w -> w.queue("email", 2).queue("default", 1).maintenanceInterval(Duration.ofMillis(50))
                .handler(v2, (email, ctx) -> {
                    if (email.to().startsWith("fail")) {
                        failures.incrementAndGet();
                        throw new IllegalStateException("smtp down");
                    }
                    seen.add(email);
                }));
        awaitState(docket, old, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(seen).containsExactly(new SendEmailV2("old@b.c", "(none)"));
        JobInfo dead = awaitState(docket, failing, JobState.DEAD, Duration.ofSeconds(10));
        assertThat(failures).hasValue(2);
        assertThat(dead.errors()).hasSize(2);
    }

    /** A kind declared on the Docket gives the string forms its settings: enqueue by name and handler by name. */
    @Test
    void aKindDeclaredOnTheDocketServesTheStringForms() {
        Docket docket = docket(b -> b.kind(SEND_EMAIL));
        long id = docket.enqueue("send_email", new SendEmail("a"));
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.queue()).isEqualTo("email");
        assertThat(job.maxAttempts()).isEqualTo(2);
        assertThat(docket.retryPolicy("send_email")).isEqualTo(SEND_EMAIL.retryPolicy());
        assertThat(docket.retryPolicy("other")).isEqualTo(RetryPolicy.defaults());

        AtomicInteger runs = new AtomicInteger();
        worker(docket, w -> w.queue("email", 1)
                .handler("send_email", SendEmail.class, (email, ctx) -> runs.incrementAndGet()));
        awaitState(docket, id, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(runs).hasValue(1);
        assertThatIllegalArgumentException().isThrownBy(() -> docket.worker()
                        .handler(JobKind.of("send_email", SendEmail.class).build(), (e, c) -> { }))
                .withMessageContaining("declares another kind named 'send_email'");
    }

    /** A periodic job of a kind is stamped with the kind's settings. */
    @Test
    void aPeriodicJobOfAKindTakesItsDefaults() {
        PeriodicJob nightly = PeriodicJob.of("nightly", "0 3 * * *", SEND_EMAIL, new SendEmail("ops"));
        assertThat(nightly.kind()).isEqualTo("send_email");
        assertThat(nightly.options().queue()).isEqualTo("email");
        assertThat(nightly.options().maxAttempts()).isEqualTo(2);
        assertThat(nightly.options().payloadVersion()).isEqualTo(1);
    }

    /** Every setting is checked when it is set or built, with a message naming the kind and the rule. */
    @Test
    void badDeclarationsAreRejectedReadably() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("", SendEmail.class))
                .withMessageContaining("kind must be 1 to 255 characters");
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("k", SendEmail.class).payloadVersion(0))
                .withMessageContaining("payloadVersion of kind 'k' must be >= 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("k", SendEmail.class).lease(Duration.ofMillis(10)))
                .withMessageContaining("lease of kind 'k' must be at least 1s");
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("k", SendEmail.class).timeout(Duration.ZERO))
                .withMessageContaining("timeout of kind 'k' must be positive");
        assertThatIllegalArgumentException().isThrownBy(() -> KindDefaults.builder().queue("no spaces"))
                .withMessageContaining("queue");
        assertThatIllegalArgumentException().isThrownBy(() -> KindDefaults.builder().priority(40_000))
                .withMessageContaining("priority must be between -32768 and 32767, was 40000");
        assertThatIllegalArgumentException().isThrownBy(() -> KindDefaults.builder().maxAttempts(0))
                .withMessageContaining("maxAttempts");
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("k", SendEmail.class).payloadVersion(4)
                        .upcaster(1, t -> t).upcaster(3, t -> t).build())
                .withMessageContaining("no upcaster from version 2 to 3");
        assertThatIllegalArgumentException().isThrownBy(() -> JobKind.of("k", SendEmail.class).payloadVersion(2)
                        .upcaster(2, t -> t).build())
                .withMessageContaining("upcaster from version 2 but its payload version is 2");
        assertThatIllegalArgumentException().isThrownBy(() -> Docket.builder(dataSource()).kind(SEND_EMAIL).kind(SEND_EMAIL))
                .withMessageContaining("a kind named 'send_email' is already declared");
        assertThatIllegalArgumentException().isThrownBy(() -> Docket.builder(dataSource()).kind(SEND_EMAIL)
                        .retryPolicy("send_email", RetryPolicy.defaults()).build())
                .withMessageContaining("declared with kind(JobKind)");
    }

    /**
     * Every field of a kind's defaults applies on both enqueue paths, with and without the job's own
     * options, for a JobKind and for a string kind. (When the defaults were a JobOptions, a sequence key
     * in them applied to enqueue(kind, p) and silently vanished from enqueue(kind, p, options): what
     * belongs to one job can no longer be a kind's default.)
     */
    @Test
    void aKindsDefaultsHoldWithAndWithoutTheJobsOwnOptions() {
        KindDefaults defaults = KindDefaults.builder().queue("mail").priority(7).maxAttempts(4).tenant("acme")
                .haltSequenceOnDeath(true).build();
        JobKind<SendEmail> halting = JobKind.of("halting", SendEmail.class).defaults(defaults).build();
        Docket docket = docket(b -> b.kind(JobKind.of("halting_string", SendEmail.class).defaults(defaults).build()));
        JobOptions own = JobOptions.builder().sequenceKey("order-1").build();

        List<Long> ids = List.of(
                docket.enqueue(halting, new SendEmail("a")).id(),
                docket.enqueue(halting, new SendEmail("b"), own).id(),
                docket.enqueue("halting_string", new SendEmail("c")),
                docket.enqueue("halting_string", new SendEmail("d"), own));

        for (long id : ids) {
            JobInfo job = docket.job(id).orElseThrow();
            assertThat(job.queue()).as("job %d", id).isEqualTo("mail");
            assertThat(job.priority()).as("job %d", id).isEqualTo(7);
            assertThat(job.maxAttempts()).as("job %d", id).isEqualTo(4);
            assertThat(job.tenant()).as("job %d", id).isEqualTo("acme");
            assertThat(queryLong("SELECT CASE WHEN sequence_halt THEN 1 ELSE 0 END FROM {s}.jobs WHERE id = ?", id))
                    .as("job %d halts its sequence", id).isEqualTo(1);
        }
        assertThat(docket.job(ids.get(1)).orElseThrow().sequenceKey()).isEqualTo("order-1");
        JobInfo ownQueue = docket.job(docket.enqueue(halting, new SendEmail("e"), JobOptions.builder().queue("urgent")
                .priority(-1).build()).id()).orElseThrow();
        assertThat(ownQueue.queue()).as("the job's own options win").isEqualTo("urgent");
        assertThat(ownQueue.priority()).isEqualTo(-1);
        assertThat(ownQueue.tenant()).as("still the kind's").isEqualTo("acme");
    }

    /** Workflow steps and batch jobs of a JobKind carry the kind's settings, as enqueue(kind, payload) does. */
    @Test
    void workflowStepsAndBatchJobsOfAKindTakeItsSettings() {
        Docket docket = docket();
        JobKind<SendEmail> v2 = SEND_EMAIL.toBuilder().payloadVersion(2).upcaster(1, t -> t).build();

        long workflow = docket.enqueueWorkflow(Workflow.builder("welcome")
                .step("first", v2, new SendEmail("a"))
                .step("second", v2, new SendEmail("b"), JobOptions.builder().queue("urgent").build(), "first")
                .build()).id();
        List<WorkflowInfo.Step> steps = docket.admin().workflow(workflow).orElseThrow().steps();
        JobInfo first = docket.job(steps.get(0).jobId()).orElseThrow();
        JobInfo second = docket.job(steps.get(1).jobId()).orElseThrow();
        assertThat(List.of(first.kind(), second.kind())).containsOnly("send_email");
        assertThat(List.of(first.payloadVersion(), second.payloadVersion())).containsOnly(2);
        assertThat(List.of(first.maxAttempts(), second.maxAttempts())).containsOnly(2);
        assertThat(first.queue()).isEqualTo("email");
        assertThat(second.queue()).as("the step's own options win").isEqualTo("urgent");
        assertThat(second.priority()).as("still the kind's").isEqualTo(-3);

        BatchEnqueued batch = docket.enqueueBatch(Batch.builder()
                .jobs(v2, List.of(new SendEmail("c"), new SendEmail("d")))
                .job(v2, new SendEmail("e"))
                .onAllSucceeded(v2, new SendEmail("done"))
                .build());
        List<Long> ids = new java.util.ArrayList<>(batch.jobs().stream().map(Enqueued::id).toList());
        ids.add(batch.onAllSucceeded());
        for (long id : ids) {
            JobInfo job = docket.job(id).orElseThrow();
            assertThat(job.queue()).as("job %d", id).isEqualTo("email");
            assertThat(job.tenant()).as("job %d", id).isEqualTo("acme");
            assertThat(job.payloadVersion()).as("job %d", id).isEqualTo(2);
            assertThat(job.maxAttempts()).as("job %d", id).isEqualTo(2);
        }
    }
}
