package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.internal.rules.TextRules;
import dev.docket.testing.DocketTest;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Text is stored exactly as given or refused, at every library entry point and in the SQL function
 * {@code enqueue}: lone surrogates (which PgJDBC would store as {@code ?}), invisible and
 * bidirectional characters in names, and times outside the documented range.
 */
class TextInputTest extends DocketTest {

    /** Strings PgJDBC cannot encode: it would send each of them with a {@code ?} in place of the surrogate. */
    private static final List<String> LONE_SURROGATES = List.of("a\ud800b", "x\ud800", "\udfff", "\udc00\ud800");
    /** Names that render as something else: invisible, reversed, or spaced by a character that is not a space. */
    private static final List<String> MISLEADING_NAMES = List.of("send\u200bemail", "\u202egnp.exe", "\ufeffk",
            "a\u00a0b", "a\u2028b", "a\u2066b", "a\u0085b", "a\u3000b", "k\u0378", "tag\udb40\udc01");
    private static final List<String> GOOD_NAMES = List.of("send_email", "send email", "メール送信", "emoji📧",
            "ünïcödé", "a.b:c-d");

    @Test
    void loneSurrogatesAreRefusedInEveryTextFieldAndNothingIsStored() {
        Docket docket = docket();
        List<Consumer<String>> fields = List.of(
                s -> docket.enqueue(s, null),
                s -> docket.enqueue("k", null, JobOptions.builder().uniqueKey(s).build()),
                s -> docket.enqueue("k", null, JobOptions.builder().tenant(s).build()),
                s -> docket.enqueue("k", null, JobOptions.builder().metadata(s, "v").build()),
                s -> docket.enqueue("k", null, JobOptions.builder().metadata("trace", s).build()),
                s -> docket.enqueue("k", null, JobOptions.builder().queue(s).build()),
                s -> docket.enqueueAll(List.of(NewJob.of(s, null))),
                s -> docket.admin().deadJobs(DeadJobQuery.all().withErrorContains(s)),
                s -> docket.admin().pauseQueue(s));
        for (String bad : LONE_SURROGATES) {
            for (int i = 0; i < fields.size(); i++) {
                Consumer<String> field = fields.get(i);
                assertThatIllegalArgumentException().as("field %d", i).isThrownBy(() -> field.accept(bad));
            }
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        assertThat(queryLong("SELECT count(*) FROM {s}.queues")).isZero();
    }

    /** The collision the driver's replacement caused: {@code x\ud800} was stored as {@code x?} and then matched it. */
    @Test
    void aKeyWithALoneSurrogateNeverMatchesTheKeyItWouldHaveBecome() {
        Docket docket = docket();
        long real = docket.enqueue("k", null, JobOptions.builder().uniqueKey("x?").tenant("t?").build());

        for (int round = 0; round < 2; round++) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> docket.enqueue(JobKind.named("k"), null, JobOptions.builder().uniqueKey("x\ud800").build()))
                    .withMessageContaining("uniqueKey").withMessageContaining("surrogate");
        }
        assertThat(docket.job(real).orElseThrow().uniqueKey()).isEqualTo("x?");
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isEqualTo(1);
    }

    @Test
    void validSupplementaryCharactersArriveUnchanged() {
        Docket docket = docket();
        long id = docket.enqueue("emoji📧", null, JobOptions.builder().uniqueKey("key📧").tenant("tenant😀")
                .metadata("tag📎", "value🎉").build());

        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.kind()).isEqualTo("emoji📧");
        assertThat(job.uniqueKey()).isEqualTo("key📧");
        assertThat(job.tenant()).isEqualTo("tenant😀");
        assertThat(job.metadata()).contains("tag📎").contains("value🎉");
    }

    @Test
    void invisibleAndBidirectionalNamesAreRefusedAtEveryEntryPoint() {
        Docket docket = docket();
        for (String name : MISLEADING_NAMES) {
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> docket.enqueue(name, null))
                    .withMessageContaining("kind must be");
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> NewJob.of(name, null));
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> docket.worker()
                    .handler(name, JsonNode.class, (p, ctx) -> { }));
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> JobQuery.all().withKind(name));
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> DeadJobQuery.all().withKind(name));
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> JobOptions.builder().queue(name));
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> docket.worker().queue(name, 1));
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> docket.admin().resumeQueue(name));
            assertThatIllegalArgumentException().as(name).isThrownBy(() -> docket.admin().setQueueLimits(name, 1, null));
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();
        for (String name : GOOD_NAMES) {
            assertThat(docket.job(docket.enqueue(name, null)).orElseThrow().kind()).isEqualTo(name);
        }
    }

    @Test
    void runAtOutsideTheDocumentedRangeIsRefusedNotClamped() {
        Docket docket = docket();
        for (String t : List.of("+99999-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59.999999Z",
                "9999-12-31T23:59:59.000001Z", "+10000-01-01T00:00:00Z")) {
            assertThatIllegalArgumentException().as(t).isThrownBy(() -> JobOptions.builder().runAt(Instant.parse(t)))
                    .withMessageContaining("runAt must be from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z");
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();

        Instant last = Instant.parse("9999-12-31T23:59:59Z");
        assertThat(docket.job(docket.enqueue("k", null, JobOptions.builder().runAt(last).build())).orElseThrow().runAt())
                .as("the latest instant is stored as given").isEqualTo(last);
        JobInfo first = docket.job(docket.enqueue("k", null, JobOptions.builder().runAt(Instant.EPOCH).build())).orElseThrow();
        assertThat(first.state()).as("a past instant means now").isEqualTo(JobState.READY);
    }

    @Test
    void theSqlFunctionRefusesMisleadingKindsAndOutOfRangeTimes() throws SQLException {
        docket();
        List<String> calls = new ArrayList<>();
        for (String kind : List.of("send\\u200Bemail", "\\u202Egnp.exe", "\\uFEFFk", "a\\u00A0b", "a\\u2028b", "a\\u0001b",
                "\\U000E0001tag", "   ")) {
            calls.add("SELECT * FROM {s}.enqueue(E'" + kind + "', '{}'::jsonb)");
        }
        if (queryLong("SELECT current_setting('server_version_num')::integer") >= 170000) {
            calls.add("SELECT * FROM {s}.enqueue(E'k\\u0378', '{}'::jsonb)");
        }
        calls.add("SELECT * FROM {s}.enqueue('k', '{}'::jsonb, run_at => '0001-01-01 00:00:00+00')");
        calls.add("SELECT * FROM {s}.enqueue('k', '{}'::jsonb, run_at => '99999-01-01 00:00:00+00')");
        calls.add("SELECT * FROM {s}.enqueue('k', '{}'::jsonb, unique_key => '')");
        calls.add("SELECT * FROM {s}.enqueue('k', '{}'::jsonb, tenant => '')");
        calls.add("SELECT * FROM {s}.enqueue('k', '{}'::jsonb, metadata => '[1]')");
        for (String call : calls) {
            assertThatThrownBy(() -> sql(call)).as(call).isInstanceOfSatisfying(SQLException.class,
                    e -> assertThat(e.getSQLState()).as(call + ": " + e.getMessage()).isEqualTo("22023"));
        }
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs")).isZero();

        assertThat(sql("SELECT * FROM {s}.enqueue('メール送信 📧', '{}'::jsonb, run_at => '9999-12-31 23:59:59+00')"))
                .as("a printable kind with a space and the latest time").isTrue();
        assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE kind = 'メール送信 📧'")).isEqualTo(1);
    }

    /**
     * The SQL function's list of unprintable characters is the JDK's: every control, format and
     * non-space separator character the library refuses, the SQL function refuses too, and the
     * printable characters it accepts. (A JDK with a newer Unicode adding a format character fails
     * here: the function then needs a new migration.)
     */
    @Test
    void theSqlFunctionsNameRuleMatchesTheLibrarys() throws SQLException {
        docket();
        int[] unprintable = IntStream.rangeClosed(1, Character.MAX_CODE_POINT)
                .filter(cp -> Character.getType(cp) != Character.UNASSIGNED && Character.getType(cp) != Character.SURROGATE)
                .filter(cp -> !TextRules.isPrintable(cp)).toArray();
        int[] printable = IntStream.concat(IntStream.rangeClosed(0x20, 0x7ff), IntStream.of(0x4e00, 0x1f4e7, 0x0627, 0x05d0))
                .filter(TextRules::isPrintable).toArray();
        assertThat(unprintable).hasSizeGreaterThan(200).contains(0x200b, 0x202e, 0xfeff, 0x00a0, 0x1f, 0xe0001);

        assertThat(acceptedByTheSqlFunction(unprintable)).as("unprintable code points the SQL function accepts").isEmpty();
        assertThat(acceptedByTheSqlFunction(printable)).as("printable code points it accepts").hasSize(printable.length);
    }

    private List<Integer> acceptedByTheSqlFunction(int[] codePoints) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(("SELECT cp FROM unnest(?::integer[]) cp "
                     + "WHERE {s}.printable_name('a' || chr(cp) || 'b') ORDER BY cp").replace("{s}", schema))) {
            Array array = c.createArrayOf("integer", IntStream.of(codePoints).boxed().toArray());
            ps.setArray(1, array);
            List<Integer> accepted = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    accepted.add(rs.getInt(1));
                }
            }
            return accepted;
        }
    }

    private boolean sql(String call) throws SQLException {
        try (Connection c = dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(call.replace("{s}", schema));
             ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getBoolean("inserted");
        }
    }
}
