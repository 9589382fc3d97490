package dev.docket.internal.db;

/** What became of one attempt, as the completer writes it. Error texts come from handlers, never payloads. */
public sealed interface Outcome {

    Fence fence();

    /** The handler returned. */
    record Completed(Fence fence) implements Outcome {
    }

    /** The handler failed and the job runs again after {@code delayMillis}. */
    record Retry(Fence fence, long delayMillis, String error) implements Outcome {
    }

    /** The handler asked to run again after {@code delayMillis}; not a failure, and the attempt is given back. */
    record Snoozed(Fence fence, long delayMillis) implements Outcome {
    }

    /** The job goes to the dead-letter table. */
    record Dead(Fence fence, String error, String reason) implements Outcome {
    }

    /**
     * The job goes back to ready: the worker shut down before it finished. {@code giveBackAttempt}
     * when the handler stopped, so the attempt did not happen; not when the handler ignored the
     * interrupt and may still be running, so that the next attempt gets a new number (a distinct
     * idempotency key) while the abandoned one could still write side effects.
     */
    record Released(Fence fence, boolean giveBackAttempt) implements Outcome {
    }
}
