package dev.docket;

/**
 * How many jobs of one tenant run now in one queue, across the cluster.
 *
 * @param tenant the tenant, or {@code null} for jobs without one
 */
public record TenantRunning(String queue, String tenant, long running) {
}
