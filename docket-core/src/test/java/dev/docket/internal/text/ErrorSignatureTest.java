package dev.docket.internal.text;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.internal.rules.TextRules;
import org.junit.jupiter.api.Test;

/** Error signatures: one broken handler, one group, whatever values its messages carry (no database). */
class ErrorSignatureTest {

    @Test
    void oneBrokenHandlerIsOneSignature() {
        String a = ErrorSignature.of("java.lang.IllegalStateException: order 12345 for customer 'Ada' failed\n\tat x.Y.z(Y.java:10)");
        String b = ErrorSignature.of("java.lang.IllegalStateException: order 987 for customer 'Grace Hopper' failed\n\tat x.Y.z(Y.java:99)");
        assertThat(a).isEqualTo(b).isEqualTo("IllegalStateException: order <n> for customer '?' failed");
    }

    @Test
    void differentFailuresStayApart() {
        assertThat(ErrorSignature.of("IllegalStateException: timeout"))
                .isNotEqualTo(ErrorSignature.of("IllegalArgumentException: timeout"))
                .isNotEqualTo(ErrorSignature.of("IllegalStateException: refused"));
    }

    @Test
    void onlyTheFirstLineCounts() {
        assertThat(ErrorSignature.of("Boom: first\nsecond line")).isEqualTo("Boom: first");
        assertThat(ErrorSignature.of("Boom: first\r\nsecond line")).isEqualTo("Boom: first");
        assertThat(ErrorSignature.of("Boom: first\rsecond line")).isEqualTo("Boom: first");
    }

    @Test
    void thePackageOfTheExceptionIsDroppedOnlyAtTheStart() {
        assertThat(ErrorSignature.of("com.acme.billing.CardDeclined: no")).isEqualTo("CardDeclined: no");
        assertThat(ErrorSignature.of("_x.y9.Z: no")).isEqualTo("Z: no");
        assertThat(ErrorSignature.of("failed in com.acme.Billing")).isEqualTo("failed in com.acme.Billing");
        assertThat(ErrorSignature.of("lease expired.")).isEqualTo("lease expired.");
    }

    @Test
    void quotedValuesAreStripped() {
        assertThat(ErrorSignature.of("no user \"ada@example.com\" here")).isEqualTo("no user \"?\" here");
        assertThat(ErrorSignature.of("no key `k1` and 'v'")).isEqualTo("no key `?` and '?'");
        assertThat(ErrorSignature.of("'x'")).isEqualTo("'?'");
        assertThat(ErrorSignature.of("an unclosed \"quote 12")).isEqualTo("an unclosed \"quote <n>");
        assertThat(ErrorSignature.of("an unclosed 'quote 12")).isEqualTo("an unclosed 'quote <n>");
    }

    @Test
    void apostrophesInWordsAreNotQuotes() {
        assertThat(ErrorSignature.of("can't reach host, won't retry 3"))
                .isEqualTo("can't reach host, won't retry <n>");
        assertThat(ErrorSignature.of("value 'it's 7' rejected")).isEqualTo("value '?' rejected");
        assertThat(ErrorSignature.of("value 'a'b' rejected")).isEqualTo("value '?' rejected");
    }

    @Test
    void uuidsHexAndIdsAreStripped() {
        assertThat(ErrorSignature.of("job 3f2504e0-4f89-11d3-9a0c-0305e82c3301 not found"))
                .isEqualTo("job <uuid> not found");
        assertThat(ErrorSignature.of("3F2504E0-4F89-11D3-9A0C-0305E82C3301")).isEqualTo("<uuid>");
        assertThat(ErrorSignature.of("3f2504e0-4f89-11d3-9a0c-0305e82c3301x")).isEqualTo("<hex>-<n>f<n>-<n>d<n>-<n>a<n>c-<id>");
        assertThat(ErrorSignature.of("at 0x7ffe12 and 0XAB")).isEqualTo("at <hex> and <hex>");
        assertThat(ErrorSignature.of("flags 0x1 and 0x10")).isEqualTo("flags <hex> and <hex>");
        assertThat(ErrorSignature.of("0x")).isEqualTo("<n>x");
        assertThat(ErrorSignature.of("0xZZ9")).isEqualTo("<n>xZZ<n>");
        assertThat(ErrorSignature.of("commit 9fceb02d0ae598e95dc970b74767f19372d61af8")).isEqualTo("commit <hex>");
        assertThat(ErrorSignature.of("sha 1a2b3c4d")).isEqualTo("sha <hex>");
        assertThat(ErrorSignature.of("sha 1a2b3c4")).isEqualTo("sha <id>");
        assertThat(ErrorSignature.of("customer cus_9aZk3LmQ declined")).isEqualTo("customer <id> declined");
        assertThat(ErrorSignature.of("user42 gone")).isEqualTo("<id> gone");
        assertThat(ErrorSignature.of("deadbeef and facade stay")).isEqualTo("deadbeef and facade stay");
    }

    @Test
    void numbersAndShortWordsWithDigits() {
        assertThat(ErrorSignature.of("took 3.5 s, limit 2")).isEqualTo("took <n> s, limit <n>");
        assertThat(ErrorSignature.of("status 503 (retry-after: -12)")).isEqualTo("status <n> (retry-after: -<n>)");
        assertThat(ErrorSignature.of("ends with 7.")).isEqualTo("ends with <n>.");
        assertThat(ErrorSignature.of("ratio 0.75")).isEqualTo("ratio <n>");
        assertThat(ErrorSignature.of("version 1.x, 2.")).isEqualTo("version <n>.x, <n>.");
        assertThat(ErrorSignature.of("v2 http2 a1b2c")).isEqualTo("v<n> http<n> a<n>b<n>c");
        assertThat(ErrorSignature.of("٣ apples")).as("any script's digits").isEqualTo("<n> apples");
    }

    @Test
    void whiteSpaceIsCollapsedAndTrimmed() {
        assertThat(ErrorSignature.of("  a \t\t b   c  ")).isEqualTo("a b c");
    }

    @Test
    void emptyErrorsHaveOneSignature() {
        assertThat(ErrorSignature.of(null)).isEqualTo(ErrorSignature.EMPTY);
        assertThat(ErrorSignature.of("")).isEqualTo(ErrorSignature.EMPTY);
        assertThat(ErrorSignature.of("  \n stack only")).isEqualTo(ErrorSignature.EMPTY);
    }

    @Test
    void signaturesAreCutWithoutSplittingAPair() {
        String longText = "x ".repeat(300);
        assertThat(ErrorSignature.of(longText)).hasSize(ErrorSignature.MAX_LENGTH - 1).startsWith("x x");
        String pairs = "a" + "\ud83d\ude00".repeat(150);
        String cut = ErrorSignature.of(pairs);
        assertThat(cut).hasSize(ErrorSignature.MAX_LENGTH - 1);
        assertThat(TextRules.isText(cut)).isTrue();
        assertThat(ErrorSignature.of("y".repeat(10_000))).hasSize(ErrorSignature.MAX_LENGTH);
    }

    @Test
    void theSameTextAlwaysGivesTheSameSignature() {
        String error = "java.io.UncheckedIOException: read 4096 bytes from \"/tmp/a b\" at 0xff";
        assertThat(ErrorSignature.of(error)).isEqualTo(ErrorSignature.of(error))
                .isEqualTo("UncheckedIOException: read <n> bytes from \"?\" at <hex>");
    }
}
