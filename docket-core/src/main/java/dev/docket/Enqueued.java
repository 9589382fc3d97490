package dev.docket;

/**
 * The result of an enqueue that reports what happened (every {@link JobKind} form, and the string
 * forms named {@code ...WithResult}): the job's id, and whether this call inserted it ({@code false}:
 * a live job already held the unique key, and {@code id} is that job's). It is truthful also under
 * races: a concurrent inserter that rolls back does not count.
 */
public record Enqueued(long id, boolean inserted) {
}
