package dev.docket.spring.app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Component;

/** Stands in for a mail gateway: records what it was asked to send. */
@Component
public class Mailer {

    private final List<String> sent = new CopyOnWriteArrayList<>();

    public void send(String to, String text) {
        sent.add(to + ": " + text);
    }

    public List<String> sent() {
        return List.copyOf(sent);
    }
}
