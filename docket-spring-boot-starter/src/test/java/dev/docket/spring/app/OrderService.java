package dev.docket.spring.app;

import dev.docket.Docket;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its confirmation job commit together or not at all. */
@Service
public class OrderService {

    private final JdbcTemplate jdbc;
    private final Docket docket;

    public OrderService(JdbcTemplate jdbc, Docket docket) {
        this.jdbc = jdbc;
        this.docket = docket;
    }

    /** Inserts the order and enqueues its confirmation; {@code failAfterEnqueue} throws after both, rolling them back. */
    @Transactional
    public long placeOrder(String email, boolean failAfterEnqueue) {
        Long id = jdbc.queryForObject("INSERT INTO shop_orders (email) VALUES (?) RETURNING id", Long.class, email);
        docket.enqueue("send_confirmation", new SendConfirmation(id, email));
        if (failAfterEnqueue) {
            throw new IllegalStateException("payment declined");
        }
        return id;
    }

    /** Orders placed for {@code email}. */
    public int ordersOf(String email) {
        return jdbc.queryForObject("SELECT count(*) FROM shop_orders WHERE email = ?", Integer.class, email);
    }
}
