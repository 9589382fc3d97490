package dev.docket.examples.shop;

import static dev.docket.test.DocketAssertions.assertEnqueued;
import static dev.docket.test.DocketAssertions.assertNotEnqueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.docket.Docket;
import dev.docket.JobRun;
import dev.docket.spring.DocketWorkers;
import dev.docket.test.DocketSpringBootTest;
import dev.docket.test.JobMatcher;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The example application tested the way its users would test theirs: one annotation gives it a real
 * PostgreSQL and a fresh schema, no background worker runs, and the test runs the jobs when it wants.
 */
@DocketSpringBootTest(properties = "shop.demo=false")
class ShopApplicationTest {

    @Autowired
    Orders orders;
    @Autowired
    Mailer mailer;
    @Autowired
    Docket docket;
    @Autowired
    DocketWorkers workers;

    @Test
    void aPlacedOrderEnqueuesItsConfirmationWhichTheHandlerBeanSends() {
        long order = orders.place("ada@example.com", 4_200, true);

        assertEnqueued(docket, JobMatcher.kind("send_confirmation").withQueue("default")
                .withPayload(SendConfirmation.class, mail -> mail.orderId() == order));
        assertThat(mailer.sent()).as("nothing runs until the test says so").isEmpty();

        List<JobRun> runs = workers.builder().runReadyJobs();

        assertThat(runs).singleElement().satisfies(run -> assertThat(run.completed()).isTrue());
        assertThat(mailer.sent()).containsExactly("ada@example.com: order " + order + " is confirmed");
        assertNotEnqueued(docket, JobMatcher.kind("send_confirmation"));
    }

    @Test
    void aDeclinedOrderLeavesNeitherTheOrderNorItsMail() {
        assertThatThrownBy(() -> orders.place("mallory@example.com", 999, false))
                .isInstanceOf(Orders.PaymentDeclined.class);

        assertThat(orders.count("mallory@example.com")).isZero();
        assertNotEnqueued(docket, JobMatcher.kind("send_confirmation")
                .withPayload(SendConfirmation.class, mail -> mail.email().equals("mallory@example.com")));
    }
}
