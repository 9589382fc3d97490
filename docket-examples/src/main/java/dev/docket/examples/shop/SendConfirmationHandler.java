package dev.docket.examples.shop;

import dev.docket.JobContext;
import dev.docket.JobHandler;
import dev.docket.spring.DocketHandler;
import org.springframework.stereotype.Component;

/** Sends an order's confirmation: a bean like any other, registered for the kind by its annotation. */
@Component
@DocketHandler("send_confirmation")
public class SendConfirmationHandler implements JobHandler<SendConfirmation> {

    private final Mailer mailer;

    public SendConfirmationHandler(Mailer mailer) {
        this.mailer = mailer;
    }

    @Override
    public void handle(SendConfirmation mail, JobContext ctx) {
        mailer.send(mail.email(), "order " + mail.orderId() + " is confirmed");
    }
}
