package dev.docket;

/**
 * A Docket operation could not be done: the database refused or could not be reached, or the
 * schema is not at the version this Docket needs. The message says what happened and, where it
 * can, what to do; it never contains a payload.
 */
public class DocketException extends RuntimeException {

    public DocketException(String message) {
        super(message);
    }

    public DocketException(String message, Throwable cause) {
        super(message, cause);
    }
}
