package dev.docket.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.spring.DocketWorkers;
import dev.docket.test.DocketSpringBootTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** With {@code worker = true} the application's worker runs as in production: a committed order's mail is sent in the background. */
@DocketSpringBootTest(worker = true, properties = "shop.demo=false")
class ShopWorkerTest {

    @Autowired
    Orders orders;
    @Autowired
    Mailer mailer;
    @Autowired
    DocketWorkers workers;

    @Test
    void theBackgroundWorkerSendsTheConfirmationOfACommittedOrder() throws InterruptedException {
        assertThat(workers.isRunning()).isTrue();
        long order = orders.place("grace@example.com", 1_500, true);
        assertThat(mailer.awaitSent(1, Duration.ofSeconds(30))).isTrue();
        assertThat(mailer.sent()).containsExactly("grace@example.com: order " + order + " is confirmed");
    }
}
