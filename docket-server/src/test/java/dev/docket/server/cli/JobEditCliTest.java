package dev.docket.server.cli;

import static dev.docket.server.cli.CliTest.assertFails;
import static dev.docket.server.cli.CliTest.assertOk;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.Docket;
import dev.docket.JobInfo;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.server.cli.CliRunner.Run;
import dev.docket.testing.DocketTest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code docket job edit}, {@code docket job run-now} and {@code docket enqueue --debounce-*}, in-process. */
class JobEditCliTest extends DocketTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    record Parcel(String address) {
    }

    private final Map<String, String> env = new HashMap<>();

    private Run cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--database-url", db.jdbcUrl(), "--schema", schema));
        return CliRunner.run(env, all.toArray(String[]::new));
    }

    private long scheduled(Docket docket) {
        return docket.enqueue("deliver", new Parcel("1 Old Road"), JobOptions.builder().delay(Duration.ofDays(1)).build());
    }

    @Test
    void editChangesAScheduledJobAndRecordsWhoDidIt() throws Exception {
        Docket docket = docket();
        long id = scheduled(docket);

        Run r = cli("job", "edit", Long.toString(id), "--payload", "{\"address\": \"2 New Street\"}", "--priority", "5",
                "--queue", "urgent", "--run-at", "2099-01-01T00:00:00Z", "--by", "ada");

        assertOk(r);
        assertThat(r.out()).isEqualTo("job " + id + ": edited; it is scheduled" + System.lineSeparator());
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.payload()).contains("2 New Street");
        assertThat(job.priority()).isEqualTo(5);
        assertThat(job.queue()).isEqualTo("urgent");
        assertThat(job.runAt()).isEqualTo(Instant.parse("2099-01-01T00:00:00Z"));
        assertThat(JSON.readTree(job.metadata()).at("/docket.edits/0/by").asText()).isEqualTo("ada (cli)");

        Run now = cli("job", "run-now", Long.toString(id));
        assertOk(now);
        assertThat(now.out()).contains("due now; it is ready");
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);
    }

    @Test
    void refusalsAndHostileInputAreOneLineWithTheirExitStatus() {
        Docket docket = docket();
        long id = scheduled(docket);
        assertFails(cli("job", "edit", Long.toString(id)), 2, "at least one");
        assertFails(cli("job", "edit", Long.toString(id), "--payload", "{"), 2, "payload");
        assertFails(cli("job", "edit", Long.toString(id), "--payload", "{\"a\": 1, \"a\": 2}"), 2, "payload");
        assertFails(cli("job", "edit", Long.toString(id), "--payload", "{\"x\": \"" + "y".repeat(300 * 1024) + "\"}"), 2,
                "payload is");
        assertFails(cli("job", "edit", Long.toString(id), "--queue", "a b"), 2, "queue must be");
        assertFails(cli("job", "edit", Long.toString(id), "--priority", "99999"), 2, "priority");
        assertFails(cli("job", "edit", Long.toString(id), "--run-at", "tomorrow"), 2, "run-at");
        assertFails(cli("job", "edit", Long.toString(id), "--run-now", "--run-at", "2099-01-01T00:00:00Z"), 2, "not both");
        assertFails(cli("job", "edit", Long.toString(id), "--priority", "1", "--by", "a\u0007b"), 2, "by must be");
        assertFails(cli("job", "edit", "0", "--priority", "1"), 2, "positive whole number");
        assertFails(cli("job", "edit", "987654", "--priority", "1"), 1, "no job 987654");
        assertFails(cli("job", "run-now", "987654"), 1, "no job 987654");
        docket.cancel(id);
        assertFails(cli("job", "edit", Long.toString(id), "--priority", "1"), 1, "has finished (cancelled)");
        assertFails(cli("job", "run-now", Long.toString(id)), 1, "has finished");
    }

    @Test
    void enqueueDebouncesWithItsKeyAndWindow() {
        Docket docket = docket();
        Run first = cli("enqueue", "--kind", "sync", "--payload", "{\"n\": 1}", "--debounce-key", "c-7",
                "--debounce-window", "5m");
        assertOk(first);
        Run second = cli("enqueue", "--kind", "sync", "--payload", "{\"n\": 2}", "--debounce-key", "c-7",
                "--debounce-window", "5m", "--debounce-max-wait", "1h");
        assertOk(second);
        long id = Long.parseLong(first.out().trim());
        assertThat(second.out().trim()).isEqualTo(id + " existing");
        assertThat(docket.job(id).orElseThrow().payload()).contains("2");
        assertThat(cli("job", "explain", Long.toString(id)).out()).contains("debounced").contains("c-7");
        assertFails(cli("enqueue", "--kind", "sync", "--payload", "{}", "--debounce-key", "k"), 2, "go together");
        assertFails(cli("enqueue", "--kind", "sync", "--payload", "{}", "--debounce-key", "k", "--debounce-window", "0s"),
                2, "debounce window");
        assertFails(cli("enqueue", "--kind", "sync", "--payload", "{}", "--debounce-key", "k", "--debounce-window", "5s",
                "--debounce-max-wait", "1s"), 2, "maxWait");
        assertFails(cli("enqueue", "--kind", "sync", "--payload", "{}", "--debounce-key", "k", "--debounce-window", "5s",
                "--unique-key", "u"), 2, "uniqueKey");
    }
}
