package dev.docket;

/**
 * A filter and keyset page for {@link DocketAdmin#deadJobs(DeadJobQuery)}: newest first.
 *
 * @param kind          only dead jobs of this kind ({@code null}: all)
 * @param errorContains only those with this text, ignoring case, in one of their error messages or their
 *                      reason; the JSON around the messages is not searched ({@code null}: all)
 * @param before        only ids below this one ({@code null}: from the newest)
 * @param limit         page size, 1 to 1000
 */
public record DeadJobQuery(String kind, String errorContains, Long before, int limit) {

    public DeadJobQuery {
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be between 1 and 1000, was " + limit);
        }
        if (kind != null) {
            Kinds.checkName(kind);
        }
        if (errorContains != null && (errorContains.isEmpty() || errorContains.length() > 1000
                || !dev.docket.internal.text.TextRules.isText(errorContains))) {
            throw new IllegalArgumentException("errorContains must be 1 to 1000 characters without NUL or unpaired surrogates");
        }
    }

    /** Every dead job, newest first, 50 a page. */
    public static DeadJobQuery all() {
        return new DeadJobQuery(null, null, null, 50);
    }

    public DeadJobQuery withKind(String kind) {
        return new DeadJobQuery(kind, errorContains, before, limit);
    }

    public DeadJobQuery withErrorContains(String text) {
        return new DeadJobQuery(kind, text, before, limit);
    }

    public DeadJobQuery withBefore(Long before) {
        return new DeadJobQuery(kind, errorContains, before, limit);
    }

    public DeadJobQuery withLimit(int limit) {
        return new DeadJobQuery(kind, errorContains, before, limit);
    }
}
