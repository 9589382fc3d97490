package dev.docket.examples.shop;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Docket in a Spring Boot application: an order is placed in a transaction that also enqueues its
 * confirmation mail (both commit, or neither), and a handler bean sends the mail. Run it with
 * {@code bin/shop}: it uses an embedded PostgreSQL unless {@code spring.datasource.url} names one,
 * places a few orders (one is declined and rolls back with its job), prints each mail sent, and exits.
 */
@SpringBootApplication
public class ShopApplication {

    public static void main(String[] args) {
        System.exit(SpringApplication.exit(SpringApplication.run(ShopApplication.class, args)));
    }
}
