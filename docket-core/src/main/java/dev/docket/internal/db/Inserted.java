package dev.docket.internal.db;

/**
 * What the insert of one job produced: its id, whether this call inserted it (false: a live job
 * already held the unique key, and {@code id} is that job's), and whether it is ready now.
 */
public record Inserted(long id, boolean inserted, boolean ready) {
}
