package dev.docket.examples.shop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/** The mail gateway of this example: prints each mail and remembers it. */
@Component
public class Mailer {

    private final List<String> sent = new ArrayList<>();

    public void send(String to, String subject) {
        System.out.println("mail to " + to + ": " + subject);
        synchronized (sent) {
            sent.add(to + ": " + subject);
            sent.notifyAll();
        }
    }

    /** Waits until {@code count} mails are sent; false if {@code timeout} passes first. */
    public boolean awaitSent(int count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (sent) {
            while (sent.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(sent, left);
            }
            return true;
        }
    }

    /** The mails sent so far, as {@code "to: subject"}. */
    public List<String> sent() {
        synchronized (sent) {
            return List.copyOf(sent);
        }
    }
}
