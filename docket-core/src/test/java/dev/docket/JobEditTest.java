package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.JobEditResult.Outcome;
import dev.docket.internal.db.ClaimedJob;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.SchemaName;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.testing.DocketTest;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link DocketAdmin#editJob} and {@link DocketAdmin#runNow}: an operator changes a job that has not started. */
class JobEditTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    record Parcel(String address) {
    }

    private Database store() {
        return new Database(dataSource(), new SchemaName(schema), PayloadCodec.defaultMapper());
    }

    private static JsonNode edits(JobInfo job) throws Exception {
        return JSON.readTree(job.metadata()).get("docket.edits");
    }

    @Test
    void editsAScheduledJobWholeAndRecordsWhoAndWhat() throws Exception {
        Docket docket = docket();
        Instant later = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.MILLIS);
        long id = docket.enqueue("deliver", new Parcel("1 Old Road"),
                JobOptions.builder().runAt(later).metadata("trace", "t-1").build());

        Instant evenLater = later.plus(1, ChronoUnit.HOURS);
        JobEditResult result = docket.admin().editJob(id, JobEdit.builder().payload("{\"address\": \"2 New Street\"}")
                .runAt(evenLater).priority(-5).queue("urgent").build(), "ada (operator, dashboard)");

        assertThat(result).isEqualTo(new JobEditResult(id, Outcome.EDITED, JobState.SCHEDULED, null));
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(JSON.readTree(job.payload()).get("address").asText()).isEqualTo("2 New Street");
        assertThat(job.runAt()).isEqualTo(evenLater);
        assertThat(job.priority()).isEqualTo(-5);
        assertThat(job.queue()).isEqualTo("urgent");
        assertThat(JSON.readTree(job.metadata()).get("trace").asText()).as("tags kept").isEqualTo("t-1");
        JsonNode edit = edits(job).get(0);
        assertThat(edit.get("by").asText()).isEqualTo("ada (operator, dashboard)");
        assertThat(edit.get("changed").toString()).isEqualTo("[\"payload\",\"runAt\",\"priority\",\"queue\"]");
        assertThat(edit.has("at")).isTrue();
        assertThat(job.metadata()).as("never the payload in the record").doesNotContain("New Street");
    }

    @Test
    void runNowMakesAScheduledJobReadyAndRecordsIt() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("deliver", new Parcel("a"), JobOptions.builder().delay(Duration.ofDays(1)).build());
        JobEditResult result = docket.admin().runNow(id, "grace");
        assertThat(result.edited()).isTrue();
        assertThat(result.state()).isEqualTo(JobState.READY);
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.READY);
        assertThat(job.runAt()).isBeforeOrEqualTo(Instant.now().plusSeconds(60));
        assertThat(edits(job).get(0).get("changed").toString()).isEqualTo("[\"runNow\"]");

        assertThat(docket.admin().runNow(id, "grace").state()).as("a ready job stays ready").isEqualTo(JobState.READY);
        assertThat(docket.job(id).orElseThrow().runAt()).as("and keeps its place").isEqualTo(job.runAt());
    }

    @Test
    void anEditThatMovesAJobIntoThePastMakesItReady() {
        Docket docket = docket();
        long id = docket.enqueue("deliver", new Parcel("a"), JobOptions.builder().delay(Duration.ofDays(1)).build());
        assertThat(docket.admin().editJob(id, JobEdit.builder().runAt(Instant.parse("2020-01-01T00:00:00Z")).build(), "ada")
                .state()).isEqualTo(JobState.READY);
    }

    @Test
    void refusesJobsThatStartedFinishedOrDoNotExist() {
        Docket docket = docket();
        long running = docket.enqueue("deliver", new Parcel("a"));
        List<ClaimedJob> claimed = claim();
        assertThat(claimed).extracting(ClaimedJob::id).containsExactly(running);
        JobEditResult refused = docket.admin().editJob(running, JobEdit.builder().payload("{}").build(), "ada");
        assertThat(refused.outcome()).isEqualTo(Outcome.NOT_EDITABLE);
        assertThat(refused.state()).isEqualTo(JobState.RUNNING);
        assertThat(refused.message()).contains("has started");
        assertThat(docket.job(running).orElseThrow().payload()).contains("\"a\"");

        long cancelled = docket.enqueue("deliver", new Parcel("b"), JobOptions.builder().delay(Duration.ofDays(1)).build());
        docket.cancel(cancelled);
        JobEditResult finished = docket.admin().runNow(cancelled, "ada");
        assertThat(finished.outcome()).isEqualTo(Outcome.NOT_EDITABLE);
        assertThat(finished.state()).isEqualTo(JobState.CANCELLED);
        assertThat(finished.message()).contains("has finished");

        assertThat(docket.admin().editJob(987_654, JobEdit.runNow(), "ada"))
                .isEqualTo(new JobEditResult(987_654, Outcome.NO_SUCH_JOB, null, null));
    }

    /** A waiting job's wait decides when it runs: its payload and priority may change, its run time and queue not. */
    @Test
    void aWaitingJobMayChangeItsPayloadAndPriorityOnly() throws Exception {
        Docket docket = docket();
        long id = docket.enqueue("deliver", new Parcel("a"), JobOptions.builder().awaitSignal("approved").build());
        JobEditResult payload = docket.admin().editJob(id, JobEdit.builder().payload("{\"address\": \"b\"}")
                .priority(3).build(), "ada");
        assertThat(payload).isEqualTo(new JobEditResult(id, Outcome.EDITED, JobState.WAITING, null));

        for (JobEdit edit : List.of(JobEdit.runNow(), JobEdit.builder().queue("other").build(),
                JobEdit.builder().runAt(Instant.parse("2030-01-01T00:00:00Z")).build())) {
            JobEditResult refused = docket.admin().editJob(id, edit, "ada");
            assertThat(refused.outcome()).as("%s", edit).isEqualTo(Outcome.NOT_EDITABLE);
            assertThat(refused.message()).contains("waiting");
        }
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.WAITING);
        assertThat(job.queue()).isEqualTo("default");
        assertThat(edits(job)).hasSize(1);
    }

    @Test
    void hostileInputIsRefusedAndNothingChanges() {
        Docket docket = docket(b -> b.maxPayloadBytes(1024));
        long id = docket.enqueue("deliver", new Parcel("a"), JobOptions.builder().delay(Duration.ofDays(1)).build());
        DocketAdmin admin = docket.admin();
        assertThatThrownBy(() -> admin.editJob(id, JobEdit.builder().payload("{\"a\": ").build(), "ada"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
        assertThatThrownBy(() -> admin.editJob(id, JobEdit.builder().payload("{\"a\": 1, \"a\": 2}").build(), "ada"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> admin.editJob(id, JobEdit.builder()
                .payload("{\"a\": \"" + "x".repeat(2000) + "\"}").build(), "ada"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("payload is ");
        assertThatThrownBy(() -> admin.editJob(id, JobEdit.runNow(), "")).hasMessageContaining("by must be");
        assertThatThrownBy(() -> admin.editJob(id, JobEdit.runNow(), "a\u202eb")).hasMessageContaining("by must be");
        assertThatThrownBy(() -> admin.editJob(id, JobEdit.runNow(), "x".repeat(201))).hasMessageContaining("by must be");
        assertThatThrownBy(() -> JobEdit.builder().queue("no spaces")).hasMessageContaining("queue must be");
        assertThatThrownBy(() -> JobEdit.builder().priority(40_000)).hasMessageContaining("priority");
        assertThatThrownBy(() -> JobEdit.builder().runAt(Instant.parse("+12000-01-01T00:00:00Z")))
                .hasMessageContaining("runAt");
        assertThatThrownBy(() -> JobEdit.builder().build()).hasMessageContaining("at least one");
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(job.metadata()).doesNotContain("docket.edits");
    }

    private List<ClaimedJob> claim() {
        try {
            return store().claims().claim("default", 10, Duration.ofMinutes(1), Map.of(), "worker-a");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * An edit racing the claim of its job, released together, many rounds: every job is claimed with either
     * all of the edit (payload and priority both new, the edit reported applied) or none of it (both old, the
     * edit reported refused because the job is running). An edit is never reported applied to a job that ran
     * with the old values, and never half applied.
     */
    @Test
    @Timeout(120)
    void anEditRacingAClaimIsAppliedWholeOrRefused() throws Exception {
        Docket docket = docket();
        Database store = store();
        int rounds = 150;
        int edited = 0;
        int refused = 0;
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < rounds; round++) {
                long id = docket.enqueue("deliver", new Parcel("old"), JobOptions.builder().queue("race").build());
                CyclicBarrier start = new CyclicBarrier(2);
                Future<List<ClaimedJob>> claim = threads.submit(() -> {
                    start.await();
                    return store.claims().claim("race", 1, Duration.ofMinutes(1), Map.of(), "worker-race");
                });
                Future<JobEditResult> edit = threads.submit(() -> {
                    start.await();
                    return docket.admin().editJob(id, JobEdit.builder().payload("{\"address\": \"new\"}")
                            .priority(7).build(), "racer");
                });
                JobEditResult result = edit.get();
                List<ClaimedJob> claimed = claim.get();
                if (claimed.isEmpty()) {
                    // The edit held the row: the claim skipped it, and the next claim takes the edited job.
                    assertThat(result.edited()).as("round %d: the claim skipped a job only the edit held", round).isTrue();
                    claimed = store.claims().claim("race", 1, Duration.ofMinutes(1), Map.of(), "worker-race");
                }
                ClaimedJob job = claimed.getFirst();
                assertThat(job.id()).isEqualTo(id);
                String address = JSON.readTree(job.payload()).get("address").asText();
                if (result.edited()) {
                    edited++;
                    assertThat(address).as("round %d: edited, so claimed with the new payload", round).isEqualTo("new");
                    assertThat(job.priority()).as("round %d: and the new priority", round).isEqualTo(7);
                    assertThat(job.metadata()).contains("docket.edits");
                } else {
                    refused++;
                    assertThat(result.outcome()).isEqualTo(Outcome.NOT_EDITABLE);
                    assertThat(result.state()).isEqualTo(JobState.RUNNING);
                    assertThat(address).as("round %d: refused, so the old payload", round).isEqualTo("old");
                    assertThat(job.priority()).as("round %d: and the old priority", round).isEqualTo(0);
                    assertThat(job.metadata()).doesNotContain("docket.edits");
                }
                JobInfo after = docket.job(id).orElseThrow();
                assertThat(after.state()).isEqualTo(JobState.RUNNING);
                assertThat(after.payload()).isEqualTo(job.payload());
                docket.cancel(id);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(edited + refused).isEqualTo(rounds);
    }

    /** A claim and an edit in the order the test sets: the claim first refuses the edit; the edit first is what runs. */
    @Test
    void aClaimFirstRefusesTheEditAndAnEditFirstIsWhatRuns() throws Exception {
        Docket docket = docket();
        Database store = store();
        long first = docket.enqueue("deliver", new Parcel("old"), JobOptions.builder().queue("race").build());
        assertThat(store.claims().claim("race", 1, Duration.ofMinutes(1), Map.of(), "w")).hasSize(1);
        assertThat(docket.admin().editJob(first, JobEdit.builder().priority(1).build(), "ada").outcome())
                .isEqualTo(Outcome.NOT_EDITABLE);

        long second = docket.enqueue("deliver", new Parcel("old"), JobOptions.builder().queue("race").build());
        assertThat(docket.admin().editJob(second, JobEdit.builder().payload("{\"address\": \"new\"}").build(), "ada")
                .edited()).isTrue();
        ClaimedJob job = store.claims().claim("race", 1, Duration.ofMinutes(1), Map.of(), "w").getFirst();
        assertThat(job.payload()).contains("new");
    }
}
