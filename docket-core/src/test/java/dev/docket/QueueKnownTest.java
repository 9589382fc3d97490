package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.docket.testing.DocketTest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link DocketAdmin#knowsQueue}: what the API and CLI check so that a misspelt queue is not created. */
class QueueKnownTest extends DocketTest {

    @Test
    void aQueueIsKnownBySettingsOrByAnyJobLiveFinishedOrDead() {
        Docket docket = docket();
        DocketAdmin admin = docket.admin();
        assertThat(admin.knowsQueue("email")).isFalse();

        admin.setQueueLimits("capped", 3, null);
        assertThat(admin.knowsQueue("capped")).as("settings").isTrue();

        docket.enqueue("mail", Map.of(), JobOptions.builder().queue("live").build());
        assertThat(admin.knowsQueue("live")).as("a waiting job").isTrue();

        long cancelled = docket.enqueue("mail", Map.of(), JobOptions.builder().queue("finished").build());
        docket.cancel(cancelled);
        assertThat(admin.knowsQueue("finished")).as("a job in the history").isTrue();

        execute("""
                INSERT INTO {s}.dead_jobs (id, queue, kind, payload, payload_version, priority, run_at, attempt,
                                           max_attempts, metadata, errors, created_at, reason)
                VALUES (999, 'buried', 'mail', '{}', 1, 0, now(), 1, 1, '{}', '[]', now(), 'gave up')""");
        assertThat(admin.knowsQueue("buried")).as("a dead job").isTrue();

        assertThat(admin.knowsQueue("Email")).as("names are exact").isFalse();
        assertThat(admin.queues()).as("asking creates nothing").hasSize(1);
        assertThatIllegalArgumentException().isThrownBy(() -> admin.knowsQueue("no spaces"));
        assertThatIllegalArgumentException().isThrownBy(() -> admin.knowsQueue(null));
    }
}
