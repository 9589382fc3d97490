package dev.docket.examples.shop;

import dev.docket.Docket;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders. The order row and its confirmation job commit together: no order without its mail, no mail without its order. */
@Service
public class Orders {

    /** Thrown for a card the payment provider declines; rolls the order and its job back. */
    public static final class PaymentDeclined extends RuntimeException {
        PaymentDeclined(String email) {
            super("payment declined for " + email);
        }
    }

    private final JdbcClient jdbc;
    private final Docket docket;

    public Orders(JdbcClient jdbc, Docket docket) {
        this.jdbc = jdbc;
        this.docket = docket;
    }

    /**
     * Places an order and enqueues its confirmation in the same transaction.
     *
     * @throws PaymentDeclined when {@code cardValid} is false: after the insert and the enqueue, so that both roll back
     */
    @Transactional
    public long place(String email, long cents, boolean cardValid) {
        long id = jdbc.sql("INSERT INTO shop_orders (email, cents) VALUES (?, ?) RETURNING id")
                .params(email, cents).query(Long.class).single();
        docket.enqueue("send_confirmation", new SendConfirmation(id, email));
        if (!cardValid) {
            throw new PaymentDeclined(email);
        }
        return id;
    }

    /** How many orders {@code email} has. */
    public long count(String email) {
        return jdbc.sql("SELECT count(*) FROM shop_orders WHERE email = ?").param(email).query(Long.class).single();
    }
}
