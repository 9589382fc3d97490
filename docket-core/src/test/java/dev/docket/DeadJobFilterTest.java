package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter text filter ({@link DeadJobQuery#withErrorContains}) reads the error messages and
 * the reason, not the JSON of the error history: an operator who filters (and then bulk-replays) by
 * "worker" must get the jobs whose messages mention a worker, not the whole table.
 */
class DeadJobFilterTest extends DocketTest {

    /** Inserts a dead job whose two failed attempts carry these messages (the JSON around them has every key). */
    private long dead(long id, String firstError, String lastError, String reason) {
        execute("""
                INSERT INTO {s}.dead_jobs (id, queue, kind, payload, payload_version, priority, run_at, attempt,
                                           max_attempts, metadata, errors, created_at, attempted_at, reason)
                VALUES (%d, 'default', 'charge', '{"card": "x"}', 1, 0, now(), 2, 2, '{}',
                        jsonb_build_array(
                            jsonb_build_object('attempt', 1, 'at', now(), 'error', '%s', 'worker', 'worker-a'),
                            jsonb_build_object('attempt', 2, 'at', now(), 'error', '%s', 'worker', 'worker-b')),
                        now(), now(), '%s')""".formatted(id, firstError, lastError, reason));
        return id;
    }

    private List<Long> matching(Docket docket, String text) {
        return docket.admin().deadJobs(DeadJobQuery.all().withErrorContains(text)).stream().map(JobSummary::id).toList();
    }

    @Test
    void theJsonOfTheErrorHistoryMatchesNothing() {
        Docket docket = docket();
        dead(1, "card declined", "card declined again", "gave up");
        dead(2, "timeout talking to the bank", "timeout", "gave up");

        for (String jsonText : List.of("attempt", "worker", "{", ":", "\"error\"", "at", "[")) {
            assertThat(matching(docket, jsonText)).as("filter %s", jsonText).isEmpty();
        }
        assertThat(docket.admin().deadJobs(DeadJobQuery.all())).hasSize(2);
    }

    @Test
    void aMessageOrReasonContainingTheTextMatchesIgnoringCase() {
        Docket docket = docket();
        long declined = dead(1, "card declined", "card declined again", "gave up");
        long workerPool = dead(2, "timeout", "Worker pool exhausted: no slot", "gave up");
        long attemptsInReason = dead(3, "timeout", "timeout", "{Attempts exhausted}");

        assertThat(matching(docket, "DECLINED")).containsExactly(declined);
        assertThat(matching(docket, "worker")).containsExactly(workerPool);
        assertThat(matching(docket, ":")).containsExactly(workerPool);
        assertThat(matching(docket, "attempt")).containsExactly(attemptsInReason);
        assertThat(matching(docket, "{")).containsExactly(attemptsInReason);
        assertThat(matching(docket, "timeout")).containsExactly(attemptsInReason, workerPool);
        assertThat(matching(docket, "gave up")).containsExactly(workerPool, declined);
    }
}
