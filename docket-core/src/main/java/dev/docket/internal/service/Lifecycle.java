package dev.docket.internal.service;

/** Something a {@link ServiceGroup} starts and stops: a {@link Service}, or a step of a shutdown. */
public interface Lifecycle {

    /** Starts; does nothing if already started. */
    void start();

    /** Stops and waits until stopped; does nothing if not started. */
    void stop();

    /** A step that does nothing at start and runs {@code action} at stop, such as closing a resource. */
    static Lifecycle onStop(Runnable action) {
        return new Lifecycle() {
            @Override
            public void start() {
            }

            @Override
            public void stop() {
                action.run();
            }
        };
    }
}
