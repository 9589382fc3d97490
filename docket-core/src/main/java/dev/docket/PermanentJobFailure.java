package dev.docket;

/**
 * Thrown by a handler to fail a job for good: it goes straight to the dead-letter table with its
 * error history, whatever attempts it has left. Use it for errors a retry cannot fix (bad input,
 * a deleted customer). The message is stored in the job's errors; keep payload data out of it.
 */
public class PermanentJobFailure extends RuntimeException {

    public PermanentJobFailure(String message) {
        super(message);
    }

    public PermanentJobFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
