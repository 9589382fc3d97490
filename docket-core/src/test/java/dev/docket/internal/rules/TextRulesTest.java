package dev.docket.internal.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The text and name rules, character by character (no database). */
class TextRulesTest {

    @Test
    void textIsValidUnicodeWithoutNul() {
        assertThat(TextRules.isText("")).isTrue();
        assertThat(TextRules.isText("plain ascii")).isTrue();
        assertThat(TextRules.isText("pair \ud83d\ude00 at the end \ud83d\ude00")).isTrue();
        assertThat(TextRules.isText("\u202e\u200b are valid text")).isTrue();

        assertThat(TextRules.isText(null)).isFalse();
        assertThat(TextRules.isText("a\0b")).isFalse();
        assertThat(TextRules.isText("\0")).isFalse();
        assertThat(TextRules.isText("high alone \ud800 then text")).isFalse();
        assertThat(TextRules.isText("high at the end \ud800")).isFalse();
        assertThat(TextRules.isText("\udc00 low first")).isFalse();
        assertThat(TextRules.isText("reversed \ude00\ud83d")).isFalse();
        assertThat(TextRules.isText("two highs \ud83d\ud83d\ude00")).isFalse();
    }

    @Test
    void namesArePrintableCharactersWithThePlainSpace() {
        assertThat(TextRules.isName("send_email")).isTrue();
        assertThat(TextRules.isName("send email")).isTrue();
        assertThat(TextRules.isName("メール送信 📧")).isTrue();
        assertThat(TextRules.isName("")).as("length is the caller's rule").isTrue();

        assertThat(TextRules.isName(null)).isFalse();
        for (String bad : new String[] {"a\tb", "a\nb", "a\0b", "a\u007fb", "a\u0085b", "zero\u200bwidth", "\u202eright",
                "\ufeffbom", "soft\u00adhyphen", "a\u00a0b", "a\u3000b", "a\u2028b", "a\u2029b", "\u0378", "a\ud800",
                "\udb40\udc01tag", "a\u2066b"}) {
            assertThat(TextRules.isName(bad)).as("%s", bad.codePoints().mapToObj(Integer::toHexString).toList()).isFalse();
        }
    }

    @Test
    void printableIsDecidedByGeneralCategory() {
        assertThat(TextRules.isPrintable(' ')).isTrue();
        assertThat(TextRules.isPrintable('a')).isTrue();
        assertThat(TextRules.isPrintable(0x1f4e7)).isTrue();
        assertThat(TextRules.isPrintable(0xe000)).as("private use is assigned and printable by this rule").isTrue();
        assertThat(TextRules.isPrintable(0x20ac)).isTrue();

        assertThat(TextRules.isPrintable(0x00)).isFalse();
        assertThat(TextRules.isPrintable(0x9f)).isFalse();
        assertThat(TextRules.isPrintable(0x200f)).isFalse();
        assertThat(TextRules.isPrintable(0x2000)).isFalse();
        assertThat(TextRules.isPrintable(0x2028)).isFalse();
        assertThat(TextRules.isPrintable(0x2029)).isFalse();
        assertThat(TextRules.isPrintable(0xd800)).isFalse();
        assertThat(TextRules.isPrintable(0x10ffff)).isFalse();
    }
}
