package dev.docket;

import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.rules.TextRules;

/**
 * A filter and keyset page for {@link DocketAdmin#deadJobs(DeadJobQuery)}: newest first.
 *
 * @param kind          only dead jobs of this kind ({@code null}: all)
 * @param errorContains only those with this text, ignoring case, in one of their error messages or their
 *                      reason; the JSON around the messages is not searched ({@code null}: all)
 * @param signature     only those whose last error has this signature ({@link DeadJobGroup#signature()}),
 *                      exactly ({@code null}: all)
 * @param before        only ids below this one ({@code null}: from the newest)
 * @param limit         page size, 1 to 1000
 */
public record DeadJobQuery(String kind, String errorContains, String signature, Long before, int limit) {

    /** The longest signature a filter may name (a signature is at most 200 characters; a longer one matches nothing). */
    public static final int MAX_SIGNATURE_LENGTH = 200;

    public DeadJobQuery {
        OptionChecks.between("limit", limit, 1, 1000);
        if (kind != null) {
            JobOptionRules.checkKind(kind);
        }
        if (errorContains != null && (errorContains.isEmpty() || errorContains.length() > 1000
                || !TextRules.isText(errorContains))) {
            throw new IllegalArgumentException("errorContains must be 1 to 1000 characters without NUL or unpaired surrogates");
        }
        if (signature != null && (signature.isEmpty() || signature.length() > MAX_SIGNATURE_LENGTH
                || !TextRules.isText(signature))) {
            throw new IllegalArgumentException("signature must be 1 to " + MAX_SIGNATURE_LENGTH
                    + " characters without NUL or unpaired surrogates");
        }
    }

    /** A filter without a signature (the form before signatures existed). */
    public DeadJobQuery(String kind, String errorContains, Long before, int limit) {
        this(kind, errorContains, null, before, limit);
    }

    /** Every dead job, newest first, 50 a page. */
    public static DeadJobQuery all() {
        return new DeadJobQuery(null, null, null, null, 50);
    }

    public DeadJobQuery withKind(String kind) {
        return new DeadJobQuery(kind, errorContains, signature, before, limit);
    }

    public DeadJobQuery withErrorContains(String text) {
        return new DeadJobQuery(kind, text, signature, before, limit);
    }

    /** Only the dead jobs of one group: {@link DeadJobGroup#signature()}, matched exactly. */
    public DeadJobQuery withSignature(String signature) {
        return new DeadJobQuery(kind, errorContains, signature, before, limit);
    }

    public DeadJobQuery withBefore(Long before) {
        return new DeadJobQuery(kind, errorContains, signature, before, limit);
    }

    public DeadJobQuery withLimit(int limit) {
        return new DeadJobQuery(kind, errorContains, signature, before, limit);
    }
}
