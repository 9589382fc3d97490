package dev.docket.internal.db;

/** The claim a worker write is fenced by: the job id and the attempt this worker claimed. */
public record Fence(long id, int attempt) {
}
