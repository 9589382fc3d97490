package dev.docket.server.cli;

import java.io.PrintWriter;

/**
 * The demo's console, shared by the traffic generator and the worker supervisor, whose threads
 * print at the same time: each line is written and flushed whole.
 *
 * @param out where the lines go
 */
record DemoLog(PrintWriter out) {

    void line(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
