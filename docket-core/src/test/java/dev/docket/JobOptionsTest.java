package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** JobOptions' defaults, validation, kind defaults and value semantics, without a database. */
class JobOptionsTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        JobOptions d = JobOptions.defaults();
        assertThat(d.queue()).isEqualTo("default");
        assertThat(d.priority()).isZero();
        assertThat(d.runAt()).isNull();
        assertThat(d.delay()).isNull();
        assertThat(d.maxAttempts()).isNull();
        assertThat(d.uniqueKey()).isNull();
        assertThat(d.uniqueFor()).isNull();
        assertThat(d.tenant()).isNull();
        assertThat(d.payloadVersion()).isNull();
        assertThat(d.metadata()).isEmpty();
        assertThat(JobOptions.builder().build()).isEqualTo(d).hasSameHashCodeAs(d);
    }

    @Test
    void queueNamesArePrintableIdentifiersOfAtMost128Characters() {
        assertThat(JobOptions.builder().queue("a-Z_0.9:x").build().queue()).isEqualTo("a-Z_0.9:x");
        assertThat(JobOptions.builder().queue("q".repeat(128)).build().queue()).hasSize(128);
        for (String bad : new String[] {null, "", "q".repeat(129), "no spaces", "tab\t", "ü"}) {
            assertThatIllegalArgumentException().as("%s", bad).isThrownBy(() -> JobOptions.builder().queue(bad))
                    .withMessageContaining("queue");
        }
    }

    /** An error quotes a bad value shortened to 40 characters, with control characters shown as '?'. */
    @Test
    void errorsQuoteTheValueShortenedAndPrintable() {
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().queue(null))
                .withMessageEndingWith(", was null");
        String forty = "x".repeat(39) + " ";
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().queue(forty))
                .withMessageEndingWith(", was '" + forty + "'");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().queue(forty + "tail"))
                .withMessageEndingWith(", was '" + forty + "... (44 characters)'");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().queue("a\nb\u0007"))
                .withMessageEndingWith(", was 'a?b?'");
    }

    @Test
    void priorityIsASmallint() {
        assertThat(JobOptions.builder().priority(Short.MIN_VALUE).build().priority()).isEqualTo(-32768);
        assertThat(JobOptions.builder().priority(Short.MAX_VALUE).build().priority()).isEqualTo(32767);
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().priority(32768))
                .withMessageContaining("priority").withMessageContaining("32768");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().priority(-32769))
                .withMessageContaining("priority");
    }

    @Test
    void runAtAndDelayReplaceEachOther() {
        Instant at = Instant.parse("2030-01-02T03:04:05Z");
        JobOptions delayed = JobOptions.builder().runAt(at).delay(Duration.ofMinutes(5)).build();
        assertThat(delayed.delay()).isEqualTo(Duration.ofMinutes(5));
        assertThat(delayed.runAt()).isNull();
        JobOptions timed = JobOptions.builder().delay(Duration.ofMinutes(5)).runAt(at).build();
        assertThat(timed.runAt()).isEqualTo(at);
        assertThat(timed.delay()).isNull();
        assertThat(JobOptions.builder().delay(Duration.ZERO).build().delay()).isZero();
        assertThat(JobOptions.builder().delay(Duration.ofDays(36_500)).build().delay()).isEqualTo(Duration.ofDays(36_500));
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().delay(Duration.ofMillis(-1)))
                .withMessageContaining("delay");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().delay(Duration.ofDays(36_501)))
                .withMessageContaining("100 years");
        assertThatNullPointerException().isThrownBy(() -> JobOptions.builder().runAt(null));
        assertThatNullPointerException().isThrownBy(() -> JobOptions.builder().delay(null));
    }

    @Test
    void attemptsAndPayloadVersionsStartAtOne() {
        assertThat(JobOptions.builder().maxAttempts(1).build().maxAttempts()).isEqualTo(1);
        assertThat(JobOptions.builder().payloadVersion(1).build().payloadVersion()).isEqualTo(1);
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().maxAttempts(0))
                .withMessage("maxAttempts must be >= 1, was 0");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().payloadVersion(0))
                .withMessage("payloadVersion must be >= 1, was 0");
    }

    @Test
    void uniqueKeysAndTenantsAreBoundedAndAPeriodNeedsAKey() {
        String longest = "k".repeat(JobOptions.MAX_KEY_LENGTH);
        assertThat(JobOptions.builder().uniqueKey(longest).tenant(longest).build().uniqueKey()).isEqualTo(longest);
        assertThat(JobOptions.builder().uniqueKey(null).tenant(null).build().tenant()).isNull();
        for (String bad : new String[] {"", longest + "k", "nul\0", "\0nul"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueKey(bad))
                    .withMessageContaining("uniqueKey");
            assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().tenant(bad))
                    .withMessageContaining("tenant");
        }
        JobOptions daily = JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofDays(366)).build();
        assertThat(daily.uniqueFor()).isEqualTo(Duration.ofDays(366));
        assertThat(JobOptions.builder().uniqueKey("k").uniqueFor(Duration.ofMillis(1)).build().uniqueFor())
                .isEqualTo(Duration.ofMillis(1));
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueFor(Duration.ofDays(367)))
                .withMessageContaining("uniqueFor");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueFor(Duration.ofMillis(-1)))
                .withMessageContaining("uniqueFor");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().uniqueFor(Duration.ofHours(1)).build())
                .withMessageContaining("uniqueKey");
    }

    @Test
    void metadataIsBoundedInCountKeyAndValue() {
        JobOptions.Builder b = JobOptions.builder();
        for (int i = 0; i < 32; i++) {
            b.metadata("k" + i, "v");
        }
        b.metadata("k0", "replaced");
        assertThatIllegalArgumentException().isThrownBy(() -> b.metadata("one-more", "v")).withMessageContaining("32");
        assertThat(b.build().metadata()).hasSize(32).containsEntry("k0", "replaced");

        assertThat(JobOptions.builder().metadata("k".repeat(64), "v".repeat(512)).build().metadata()).hasSize(1);
        for (String badKey : new String[] {null, "", "k".repeat(65), "a\0b", "\0b"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().metadata(badKey, "v"))
                    .withMessageContaining("metadata key");
        }
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().metadata("k", "v".repeat(513)))
                .withMessageContaining("metadata value");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().metadata("k", "a\0b"))
                .withMessageContaining("metadata value");
        assertThatIllegalArgumentException().isThrownBy(() -> JobOptions.builder().metadata("k", "\0b"))
                .withMessageContaining("metadata value");
        assertThatNullPointerException().isThrownBy(() -> JobOptions.builder().metadata("k", null));
    }

    @Test
    void kindDefaultsFillOnlyWhatWasLeftUnset() {
        KindDefaults kind = KindDefaults.builder().queue("email").priority(-5).maxAttempts(3).tenant("acme").build();

        JobOptions plain = JobOptions.defaults().withDefaults(kind);
        assertThat(plain.queue()).isEqualTo("email");
        assertThat(plain.priority()).isEqualTo(-5);
        assertThat(plain.maxAttempts()).isEqualTo(3);
        assertThat(plain.tenant()).isEqualTo("acme");

        JobOptions explicit = JobOptions.builder().queue("default").priority(0).maxAttempts(9).tenant("other").build();
        assertThat(explicit.withDefaults(kind)).isEqualTo(explicit);
        assertThat(explicit.withDefaults(null)).isSameAs(explicit);
        assertThat(JobOptions.defaults().withDefaults(KindDefaults.none())).isEqualTo(JobOptions.defaults());
    }

    @Test
    void equalityCoversEveryFieldAndToBuilderCopiesThemAll() {
        JobOptions full = JobOptions.builder().queue("q").priority(3).delay(Duration.ofSeconds(5)).maxAttempts(4)
                .uniqueKey("u").uniqueFor(Duration.ofHours(1)).tenant("t").payloadVersion(2).metadata("trace", "abc")
                .build();
        assertThat(full.toBuilder().build()).isEqualTo(full).hasSameHashCodeAs(full);
        assertThat(JobOptions.builder().runAt(Instant.EPOCH).build().toBuilder().build().runAt()).isEqualTo(Instant.EPOCH);
        assertThat(full.toBuilder().queue("r").build()).isNotEqualTo(full);
        assertThat(full.toBuilder().priority(4).build()).isNotEqualTo(full);
        assertThat(full.toBuilder().delay(Duration.ofSeconds(6)).build()).isNotEqualTo(full);
        assertThat(full.toBuilder().runAt(Instant.EPOCH).build()).isNotEqualTo(full);
        assertThat(full.toBuilder().maxAttempts(5).build()).isNotEqualTo(full);
        assertThat(full.toBuilder().uniqueKey("v").build()).isNotEqualTo(full);
        assertThat(full.toBuilder().uniqueFor(Duration.ofHours(2)).build()).isNotEqualTo(full);
        assertThat(full.toBuilder().tenant("s").build()).isNotEqualTo(full);
        assertThat(full.toBuilder().payloadVersion(3).build()).isNotEqualTo(full);
        assertThat(full.toBuilder().metadata("trace", "abd").build()).isNotEqualTo(full);
        assertThat(JobOptions.builder().queue("default").build()).as("a queue set to the default is not unset")
                .isNotEqualTo(JobOptions.defaults());
        assertThat(JobOptions.builder().priority(0).build()).isNotEqualTo(JobOptions.defaults());
        assertThat(full).isNotEqualTo("q");
    }

    @Test
    void toStringShowsMetadataKeysButNotTheirValues() {
        JobOptions options = JobOptions.builder().queue("q").tenant("acme").metadata("trace", "secret-value").build();
        assertThat(options.toString()).startsWith("JobOptions[queue=q, priority=0, ").contains(", tenant=acme, ")
                .contains("trace").doesNotContain("secret-value");
    }
}
