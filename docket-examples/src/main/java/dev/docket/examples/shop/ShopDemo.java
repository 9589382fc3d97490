package dev.docket.examples.shop;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/**
 * What {@code bin/shop} shows: three orders, one declined; the two placed get their confirmation
 * mail from the worker, the declined one neither an order row nor a job. Off with {@code shop.demo=false}.
 */
@Component
@ConditionalOnProperty(name = "shop.demo", havingValue = "true", matchIfMissing = true)
class ShopDemo implements ApplicationRunner {

    private final Orders orders;
    private final Mailer mailer;

    ShopDemo(Orders orders, Mailer mailer) {
        this.orders = orders;
        this.mailer = mailer;
    }

    @Override
    public void run(ApplicationArguments args) throws InterruptedException {
        for (String email : List.of("ada@example.com", "grace@example.com")) {
            System.out.println("placed order " + orders.place(email, 4_200, true) + " for " + email);
        }
        try {
            orders.place("mallory@example.com", 999, false);
        } catch (Orders.PaymentDeclined e) {
            System.out.println(e.getMessage() + ": orders for mallory@example.com = "
                    + orders.count("mallory@example.com") + " (the order and its job rolled back)");
        }
        // The worker runs on its own threads: the demo waits for both mails before it exits.
        mailer.awaitSent(2, Duration.ofSeconds(30));
        System.out.println(mailer.sent().size() + " confirmations sent; stopping (the worker shuts down gracefully)");
    }
}
