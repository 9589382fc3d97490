package dev.docket.server.cli;

import dev.docket.DeadJobQuery;
import picocli.CommandLine.Option;

/** Which dead jobs: {@code --kind}, {@code --error-contains} and {@code --signature}, for {@code dlq list} and {@code dlq replay}. */
final class DeadJobFilterOptions {

    @Option(names = "--kind", paramLabel = "KIND", order = 1, description = "Only dead jobs of this kind.")
    String kind;

    @Option(names = "--error-contains", paramLabel = "TEXT", order = 2,
            description = "Only those whose errors or reason contain TEXT (ignoring case).")
    String errorContains;

    @Option(names = "--signature", paramLabel = "SIGNATURE", order = 3,
            description = "Only those of this error signature (see `dlq groups`), exactly.")
    String signature;

    /** The filter; an empty option value means no filter on it. */
    DeadJobQuery query() {
        return DeadJobQuery.all().withKind(blankToNull(kind)).withErrorContains(blankToNull(errorContains))
                .withSignature(blankToNull(signature));
    }

    static String blankToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
