package dev.docket.examples.shop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.springframework.stereotype.Component;

/** The mail gateway of this example: prints each mail and remembers it. */
@Component
public class Mailer {

    private final List<String> sent = new CopyOnWriteArrayList<>();
    /** One permit per mail sent, for {@link #awaitSent}. */
    private final Semaphore sentPermits = new Semaphore(0);

    public void send(String to, String subject) {
        System.out.println("mail to " + to + ": " + subject);
        sent.add(to + ": " + subject);
        sentPermits.release();
    }

    /**
     * Waits until {@code count} mails are sent; false if {@code timeout} passes first.
     *
     * @throws IllegalArgumentException if {@code count} is negative
     */
    public boolean awaitSent(int count, Duration timeout) throws InterruptedException {
        if (!sentPermits.tryAcquire(count, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        // The permits only counted the mails: handed back, a later wait counts them again.
        sentPermits.release(count);
        return true;
    }

    /** The mails sent so far, as {@code "to: subject"}. */
    public List<String> sent() {
        return List.copyOf(sent);
    }
}
