package dev.docket;

import java.time.Instant;

/**
 * Dead jobs of one kind that died of the same failure, for triage: which failure, how many, since
 * when. Jobs fall in one group when the first lines of their last errors have the same signature:
 * the error with numbers, ids, UUIDs, hex and quoted values stripped and the exception's package
 * left out, so that one broken handler makes one group whatever values its messages carry
 * ({@code IllegalStateException: order <n> for customer '?' failed}).
 *
 * @param kind        the jobs' kind
 * @param signature   the normalised error; filter and replay the group with {@link DeadJobQuery#withSignature}
 * @param error       the first line of the newest job's last error, as an example (at most 500 characters)
 * @param count       how many dead jobs the group has
 * @param firstDiedAt when its oldest job died
 * @param lastDiedAt  when its newest job died
 */
public record DeadJobGroup(String kind, String signature, String error, long count, Instant firstDiedAt,
                           Instant lastDiedAt) {
}
