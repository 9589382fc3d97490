package dev.docket.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.docket.Enqueued;
import dev.docket.JobKind;
import dev.docket.JobOptions;
import dev.docket.NewJob;
import dev.docket.server.api.PayloadCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code docket enqueue}: one job, from the shell. */
@Command(name = "enqueue", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Enqueues one job and prints its id.",
                "With a --unique-key that a live job (scheduled, ready or running) holds already, nothing is "
                        + "inserted and the output is that job's id followed by 'existing'."},
        footerHeading = "%nExample:%n",
        footer = {"  docket enqueue --kind send_email --queue email \\",
                "      --payload '{\"to\":\"ada@example.com\"}' --delay 10m"})
final class EnqueueCommand extends DatabaseCommand {

    /**
     * Reads payloads as the API does: exact decimals, so no number changes on its way to the
     * database, and a duplicate field name is an error (jsonb would keep only one of the values).
     */
    static final ObjectMapper JSON = JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    @Option(names = "--kind", required = true, paramLabel = "KIND", order = 1,
            description = "The job's kind, which selects its handler.")
    String kind;

    @Option(names = "--payload", required = true, paramLabel = "JSON", order = 2,
            description = "The payload as JSON ('{}' for none); @FILE reads it from a file.")
    String payload;

    @Option(names = "--queue", paramLabel = "QUEUE", order = 3,
            description = "The queue (default: the kind's configured queue, else 'default').")
    String queue;

    @Option(names = "--priority", paramLabel = "N", order = 4, converter = Converters.PriorityConverter.class,
            description = "Smaller runs first within the queue, -32768 to 32767 (default: 0).")
    Integer priority;

    @Option(names = "--run-at", paramLabel = "TIME", order = 5, converter = Converters.InstantConverter.class,
            description = "Run no earlier than this ISO-8601 time, e.g. 2026-01-31T12:00:00Z.")
    Instant runAt;

    @Option(names = "--delay", paramLabel = "DURATION", order = 6, converter = Converters.DurationConverter.class,
            description = "Run this long from now (by the database's clock): 500ms, 30s, 5m, 2h, 1d.")
    Duration delay;

    @Option(names = "--unique-key", paramLabel = "KEY", order = 7,
            description = "At most one live job holds this key; a duplicate returns the existing job.")
    String uniqueKey;

    @Option(names = "--unique-for", paramLabel = "DURATION", order = 8, converter = Converters.DurationConverter.class,
            description = "Hold the unique key this long from now, even after the job finished (one job per period).")
    Duration uniqueFor;

    @Option(names = "--tenant", paramLabel = "TENANT", order = 9, description = "The fairness key the job is accounted to.")
    String tenant;

    @Option(names = "--max-attempts", paramLabel = "N", order = 10, converter = Converters.MaxAttemptsConverter.class,
            description = "Attempts before the dead-letter table (default: the kind's retry policy, 20).")
    Integer maxAttempts;

    @Option(names = "--sequence-key", paramLabel = "KEY", order = 11,
            description = "Run in this sequence: jobs with the same key run one at a time, in enqueue order.")
    String sequenceKey;

    @Option(names = "--halt-sequence-on-death", order = 12, negatable = true,
            description = "If this job dies, halt its sequence until it is retried or discarded "
                    + "(default: the kind's setting, else the sequence continues).")
    Boolean haltSequenceOnDeath;

    @Option(names = "--debounce-key", paramLabel = "KEY", order = 13,
            description = "Debounce: enqueues of this kind with this key collapse into one job that runs "
                    + "--debounce-window after the last of them, with the last payload. Needs --debounce-window.")
    String debounceKey;

    @Option(names = "--debounce-window", paramLabel = "DURATION", order = 14, converter = Converters.DurationConverter.class,
            description = "How long after the last enqueue of --debounce-key the job runs.")
    Duration debounceWindow;

    @Option(names = "--debounce-max-wait", paramLabel = "DURATION", order = 15, converter = Converters.DurationConverter.class,
            description = "The longest the job waits after the first enqueue of its key (default: 10 windows).")
    Duration debounceMaxWait;

    @Override
    public Integer call() {
        if (runAt != null && delay != null) {
            throw CommandFailure.usage("give --run-at or --delay, not both");
        }
        JsonNode json = readPayload();
        JobOptions options = options();
        NewJob job = NewJob.of(kind, json, options);
        Enqueued result = withDocket(docket -> docket.enqueue(JobKind.named(job.kind()), job.payload(), job.options()));
        return println(result.inserted() ? Long.toString(result.id()) : result.id() + " existing");
    }

    /** The options given; one left out keeps the kind's configured value, else the library's default. */
    private JobOptions options() {
        JobOptions.Builder b = JobOptions.builder();
        ifGiven(queue, b::queue);
        ifGiven(priority, b::priority);
        ifGiven(runAt, b::runAt);
        ifGiven(delay, b::delay);
        ifGiven(uniqueKey, b::uniqueKey);
        ifGiven(uniqueFor, b::uniqueFor);
        ifGiven(tenant, b::tenant);
        ifGiven(maxAttempts, b::maxAttempts);
        ifGiven(sequenceKey, b::sequenceKey);
        ifGiven(haltSequenceOnDeath, b::haltSequenceOnDeath);
        if (debounceKey != null || debounceWindow != null || debounceMaxWait != null) {
            if (debounceKey == null || debounceWindow == null) {
                throw CommandFailure.usage("--debounce-key and --debounce-window go together (--debounce-max-wait is optional)");
            }
            if (debounceMaxWait == null) {
                b.debounce(debounceKey, debounceWindow);
            } else {
                b.debounce(debounceKey, debounceWindow, debounceMaxWait);
            }
        }
        return b.build();
    }

    private static <T> void ifGiven(T value, Consumer<T> option) {
        if (value != null) {
            option.accept(value);
        }
    }

    private JsonNode readPayload() {
        String text = payload;
        if (text.startsWith("@")) {
            Path file = Path.of(text.substring(1));
            try {
                text = Files.readString(file);
            } catch (IOException e) {
                throw CommandFailure.usage("cannot read the payload file " + file + ": " + ErrorMessages.io(e));
            }
        }
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            String what = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field")
                    ? "has a field name twice" : "is not valid JSON";
            throw CommandFailure.usage("--payload " + what + " (line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + ")");
        }
        if (node == null || node.isMissingNode()) {
            throw CommandFailure.usage("--payload is empty; give a JSON value such as {}");
        }
        PayloadCheck.check(node);
        return node;
    }
}
