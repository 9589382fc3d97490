package dev.docket.internal.service;

/** Something a {@link ServiceGroup} starts and stops: a {@link Service}, or a step of a shutdown. */
public interface Lifecycle {

    /** Starts; does nothing if already started. */
    void start();

    /** Stops and waits until stopped; does nothing if not started. */
    void stop();
}
