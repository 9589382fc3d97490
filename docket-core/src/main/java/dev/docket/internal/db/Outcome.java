package dev.docket.internal.db;

/** What became of one attempt, as the completer writes it. Error texts come from handlers, never payloads. */
public sealed interface Outcome {

    Fence fence();

    /**
     * The sequence whose head this outcome takes out of the jobs table ({@code JobOptions.sequenceKey}),
     * whose lock the write then takes; null when it takes out none.
     */
    default String removesHeadOf() {
        return null;
    }

    /** The handler returned. {@code sequenceKey}: the job's, or null. */
    record Completed(Fence fence, String sequenceKey) implements Outcome {
        @Override
        public String removesHeadOf() {
            return sequenceKey;
        }
    }

    /** The handler failed and the job runs again after {@code delayMillis}. */
    record Retry(Fence fence, long delayMillis, String error) implements Outcome {
    }

    /** The handler asked to run again after {@code delayMillis}; not a failure, and the attempt is given back. */
    record Snoozed(Fence fence, long delayMillis) implements Outcome {
    }

    /** The job goes to the dead-letter table. */
    record Dead(Fence fence, String sequenceKey, String error, String reason) implements Outcome {
        @Override
        public String removesHeadOf() {
            return sequenceKey;
        }
    }

    /**
     * The handler asked to wait for signal {@code signal} ({@code JobContext.awaitSignal}): not a failure, and
     * the attempt is given back. {@code timeoutMillis} and {@code onTimeout} ('run', 'fail', 'cancel') are null
     * for a wait without a timeout.
     */
    record AwaitSignal(Fence fence, String signal, Long timeoutMillis, String onTimeout) implements Outcome {
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
