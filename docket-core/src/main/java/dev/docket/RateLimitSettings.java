package dev.docket;

import java.time.Instant;

/**
 * A rate limit as the database holds it ({@link DocketAdmin#rateLimits()}).
 *
 * @param limit     the limit the claims apply now
 * @param edited    true when it was set at run time ({@link DocketAdmin#setRateLimit}): nodes that
 *                  declare the limit in their builder then leave it as it is until it is removed
 * @param updatedAt when it last changed
 */
public record RateLimitSettings(RateLimit limit, boolean edited, Instant updatedAt) {
}
